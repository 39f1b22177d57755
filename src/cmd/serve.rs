//! `hpacalc serve`: the flags read into `serve::Config`, and the server run (`crate::serve`).

use anyhow::Result;

use crate::cli::{LogFormat, ServeArgs};
use crate::input::{Settings, flag_duration};
use crate::serve::Config;

pub fn run(args: &ServeArgs) -> Result<()> {
    if args.log_format == LogFormat::Json {
        crate::term::log_json();
    }
    let config = Config {
        listen: args
            .listen
            .parse()
            .map_err(|e| crate::error::InputError::new("--listen", e))?,
        offline: args.offline,
        namespaces: args.namespace.clone(),
        all_namespaces: args.all_namespaces,
        kubeconfig: args.kubeconfig.clone(),
        context: args.context.clone(),
        cluster: args.cluster.clone(),
        user: args.user.clone(),
        overrides: crate::cmd::live::overrides(&args.auth),
        request_timeout: crate::input::live::request_timeout(&args.request_timeout)?,
        verbosity: args.verbosity,
        settings: Settings::from_fleet_flags(&args.controller)?,
        sync_period: flag_duration("--sync-period", &args.controller.sync_period)?,
        page_timeout: flag_duration("--page-timeout", &args.page_timeout)?,
        max_evaluations: args.max_evaluations,
    };
    crate::serve::run(&config)
}
