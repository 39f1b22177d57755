//! `hpacalc mcp`: the flags read into the MCP server's context, and the server run (`crate::mcp`).

use anyhow::Result;

use crate::cli::McpArgs;
use crate::mcp::Context;

pub fn run(args: &McpArgs) -> Result<()> {
    let call_timeout = crate::input::flag_duration("--call-timeout", &args.call_timeout)?;
    let context = Context {
        allow_live: args.allow_live,
        kubeconfig: args.kubeconfig.clone(),
    };
    crate::mcp::run(context, call_timeout)
}
