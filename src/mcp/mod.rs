//! The MCP front end (`hpacalc mcp`; `cmd::mcp` fills `Context` from the flags): the calculator
//! as tools of the Model Context Protocol, over stdin and stdout (the `rmcp` crate, the
//! protocol's Rust SDK). Read-only by construction: the tools compute
//! from the texts they are given, and only with `--allow-live` do two of them read the cluster,
//! with the GETs and lists of live mode.
//!
//! Every call is bounded: each text by `args::MAX_TEXT_BYTES` and each message by
//! `MAX_MESSAGE_BYTES`, one call at a time on a thread of its own, answered within
//! `--call-timeout` and stopped at it (the work looks at the deadline: the slot frees within an
//! instant), a run past the request budget refused before it starts; at most
//! `MAX_QUEUED_CALLS` calls of `MAX_QUEUED_BYTES` of arguments wait or run at once, and one more
//! is a JSON-RPC error. An input error, a bad argument, a call past its time and even a panic are
//! the call's error result (`isError`, the CLI's located message), never the server's end.

pub mod args;
pub mod brief;
pub mod tools;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration as StdDuration;

use anyhow::Result;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, ErrorCode, Implementation, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use tokio::sync::Semaphore;

use crate::error::InputError;
use crate::input::live::LiveError;
use crate::stop::{Stop, Stopped};
use crate::work::bounds::Bounds;
pub use tools::Context;

/// The largest message read: a larger one is dropped by the transport, unanswered.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// What the server tells a client it is for, at `initialize`.
const INSTRUCTIONS: &str = "hpacalc runs the Kubernetes HorizontalPodAutoscaler controller's \
own algorithm on the objects you give it and explains its decision. Prefer explain_hpa to \
estimating an HPA's behaviour from its formula: paste the HPA (manifest, describe text or get \
hpa table) and whatever else the user has (pods, metrics or top, events). Every tool is \
read-only.";

/// The most calls that wait for the slot or hold it: a client that sends more gets a JSON-RPC
/// error for each one over, at once, instead of a queue that grows with what it sends.
pub const MAX_QUEUED_CALLS: usize = 8;
/// The most bytes of arguments those calls hold together (about: the strings and a little for
/// each JSON node).
pub const MAX_QUEUED_BYTES: usize = 256 * 1024 * 1024;

/// The server: the tools, the one slot a call runs in, and the calls queued for it.
#[derive(Debug, Clone)]
pub struct Server {
    context: Context,
    timeout: StdDuration,
    slot: Arc<Semaphore>,
    queue: Arc<Mutex<Queued>>,
}

/// The calls waiting for the slot or holding it, and their arguments' bytes.
#[derive(Debug, Default)]
struct Queued {
    calls: usize,
    bytes: usize,
}

/// One call's place in the queue, given back when the call is answered.
struct InQueue {
    queue: Arc<Mutex<Queued>>,
    bytes: usize,
}

impl Drop for InQueue {
    fn drop(&mut self) {
        if let Ok(mut q) = self.queue.lock() {
            q.calls = q.calls.saturating_sub(1);
            q.bytes = q.bytes.saturating_sub(self.bytes);
        }
    }
}

/// About how many bytes `value` holds in memory: its strings and keys, and a little for each
/// node (serde_json's parser nests at most 128 levels, so this recursion is shallow).
fn weight(value: &serde_json::Value) -> usize {
    const NODE: usize = 32;
    match value {
        serde_json::Value::String(s) => s.len() + NODE,
        serde_json::Value::Array(a) => a.iter().map(weight).sum::<usize>() + NODE,
        serde_json::Value::Object(o) => {
            o.iter().map(|(k, v)| k.len() + weight(v)).sum::<usize>() + NODE
        }
        _ => NODE,
    }
}

impl Server {
    /// A place in the queue for a call of `arguments`, or the JSON-RPC error that refuses it.
    fn enqueue(&self, arguments: &rmcp::model::JsonObject) -> Result<InQueue, ErrorData> {
        let bytes = arguments
            .iter()
            .map(|(k, v)| k.len() + weight(v))
            .sum::<usize>();
        let Ok(mut q) = self.queue.lock() else {
            return Err(ErrorData::internal_error(
                "the call queue is unreadable",
                None,
            ));
        };
        if q.calls >= MAX_QUEUED_CALLS || q.bytes.saturating_add(bytes) > MAX_QUEUED_BYTES {
            return Err(ErrorData::new(
                ErrorCode(-32000),
                format!(
                    "too many calls at once: {} are queued with {} bytes of arguments, the \
                     server takes at most {MAX_QUEUED_CALLS} calls and {MAX_QUEUED_BYTES} bytes; \
                     wait for an answer before sending more",
                    q.calls, q.bytes
                ),
                None,
            ));
        }
        q.calls += 1;
        q.bytes += bytes;
        Ok(InQueue {
            queue: Arc::clone(&self.queue),
            bytes,
        })
    }
}

/// Serves one client on stdin and stdout until it closes them: the tools of `context`, each
/// call answered within `call_timeout`.
pub fn run(context: Context, call_timeout: crate::time::Duration) -> Result<()> {
    let millis = u64::try_from(call_timeout.millis()).unwrap_or(0).max(1);
    let server = Server {
        context,
        timeout: StdDuration::from_millis(millis),
        slot: Arc::new(Semaphore::new(1)),
        queue: Arc::default(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| LiveError(format!("cannot start the I/O runtime: {e}")))?;
    runtime.block_on(async move {
        let (stdin, stdout) = rmcp::transport::stdio();
        let transport =
            AsyncRwTransport::new_server(stdin, stdout).with_max_line_length(MAX_MESSAGE_BYTES);
        let running = server
            .serve(transport)
            .await
            .map_err(|e| LiveError(format!("the MCP session did not start: {e}")))?;
        running
            .waiting()
            .await
            .map_err(|e| LiveError(format!("the MCP session ended: {e}")))?;
        Ok(())
    })
}

/// An error result: the text a person reads, as the CLI prints it after `error: `
/// (`error::shown_text`: each value cut to 80 characters, control characters escaped).
fn failed(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(crate::error::shown_text(&message))])
}

impl Server {
    /// One call, on a thread of its own: it takes the server's one slot (waiting at most the
    /// call's time for an earlier call to end), and its answer is awaited until the timeout.
    /// A call past its time keeps the slot until it ends, so that runaway work never piles up;
    /// its work is given the same deadline, so it ends within an instant of the answer.
    /// A call the client cancels (`notifications/cancelled`, which rmcp turns into `cancelled`)
    /// stops the same way: its work at once, its queue place when this returns.
    async fn bounded(
        &self,
        name: String,
        arguments: rmcp::model::JsonObject,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> CallToolResult {
        tokio::pin!(cancelled);
        let deadline = tokio::time::Instant::now() + self.timeout;
        let shown = crate::error::quoted(&name);
        let waited = tokio::select! {
            waited = tokio::time::timeout_at(deadline, self.slot.clone().acquire_owned()) => waited,
            () = &mut cancelled => return failed(format!("{shown}: cancelled by the client")),
        };
        let Ok(Ok(permit)) = waited else {
            return failed(format!(
                "{shown}: an earlier call is still running past its --call-timeout; try again \
                 later"
            ));
        };
        let (tx, rx) = tokio::sync::oneshot::channel();
        let context = self.context.clone();
        let raised = Arc::new(AtomicBool::new(false));
        let stop = Stop::at(deadline.into_std()).or_when(Arc::clone(&raised));
        let bounds = Bounds::request(stop);
        let spawned = std::thread::Builder::new()
            .name("mcp-call".into())
            .spawn(move || {
                let answer = tools::call(&name, arguments, &context, &bounds);
                let _ = tx.send(answer);
                drop(permit);
            });
        if let Err(e) = spawned {
            return failed(format!("{shown}: cannot start the call: {e}"));
        }
        let answer = tokio::select! {
            answer = tokio::time::timeout_at(deadline, rx) => answer,
            () = &mut cancelled => {
                // The work sees the flag at its next check and gives the slot back.
                raised.store(true, Ordering::Relaxed);
                return failed(format!("{shown}: cancelled by the client"));
            }
        };
        match answer {
            Ok(Ok(Some(Ok(answer)))) => {
                // The JSON once, as the structured content; the text is the short one.
                let mut result = CallToolResult::success(vec![ContentBlock::text(answer.summary)]);
                result.structured_content = Some(answer.value);
                result
            }
            Ok(Ok(Some(Err(e)))) if e.downcast_ref::<Stopped>().is_none() => {
                failed(crate::error::shown(&e))
            }
            Ok(Ok(None)) => failed(format!("{shown}: no such tool; tools/list names them")),
            Ok(Err(_)) => failed(format!(
                "{shown}: the call failed inside hpacalc (a bug: please report it with its \
                 arguments)"
            )),
            // Past the deadline: the work stopped at it, or is about to.
            Err(_) | Ok(Ok(Some(Err(_)))) => failed(
                InputError::new(
                    "--call-timeout",
                    format!(
                        "the call took longer than {} ms, the server's limit for one call",
                        self.timeout.as_millis()
                    ),
                )
                .to_string(),
            ),
        }
    }
}

/// The error for a request rmcp did not take: a method MCP does not have, or (rmcp hands those
/// here too) an MCP method whose params do not deserialize, with serde's reason. Either is quoted
/// as every error is (`error::shown_text`): serde's reason quotes the value it refused, which may
/// be megabytes.
fn unknown_or_invalid(request: &CustomRequest) -> ErrorData {
    let method = crate::error::quoted(&request.method);
    let params = request.params.clone().unwrap_or(serde_json::Value::Null);
    let refused = match request.method.as_str() {
        "tools/call" => serde_json::from_value::<CallToolRequestParams>(params).err(),
        "tools/list" | "resources/list" | "prompts/list" | "resources/templates/list" => {
            serde_json::from_value::<Option<PaginatedRequestParams>>(params).err()
        }
        "initialize"
        | "ping"
        | "resources/read"
        | "prompts/get"
        | "completion/complete"
        | "logging/setLevel"
        | "resources/subscribe"
        | "resources/unsubscribe" => {
            return ErrorData::invalid_params(format!("invalid params for {method}"), None);
        }
        _ => None,
    };
    match refused {
        Some(e) => ErrorData::invalid_params(
            crate::error::shown_text(&format!("invalid params for {method}: {e}")),
            None,
        ),
        None => ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: {method}"),
            None,
        ),
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("hpacalc", env!("CARGO_PKG_VERSION"))
                    .with_title("hpacalc: the Kubernetes HPA controller, exactly"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::list(&self.context)))
    }

    /// A method MCP does not have: rmcp's own answer echoes the whole method name (4 MiB, if that
    /// is what came); this one quotes it as every error does.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(unknown_or_invalid(&request))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !tools::offers(&self.context, &request.name) {
            return Err(ErrorData::invalid_params(
                format!(
                    "no tool named {}; tools/list names them",
                    crate::error::quoted(&request.name)
                ),
                None,
            ));
        }
        let arguments = request.arguments.unwrap_or_default();
        let _queued = self.enqueue(&arguments)?;
        Ok(self
            .bounded(
                request.name.into_owned(),
                arguments,
                context.ct.cancelled_owned(),
            )
            .await
            .into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> Server {
        Server {
            context: Context::default(),
            timeout: StdDuration::from_secs(1),
            slot: Arc::new(Semaphore::new(1)),
            queue: Arc::default(),
        }
    }

    fn arguments(text_bytes: usize) -> rmcp::model::JsonObject {
        let mut map = rmcp::model::JsonObject::new();
        map.insert(
            "hpa".into(),
            serde_json::Value::String("x".repeat(text_bytes)),
        );
        map
    }

    #[test]
    fn queued_calls_are_bounded_in_number_and_in_bytes_and_given_back() {
        let s = server();
        let held: Vec<InQueue> = (0..MAX_QUEUED_CALLS)
            .map(|_| s.enqueue(&arguments(10)).unwrap())
            .collect();
        let refused = s.enqueue(&arguments(10)).err().unwrap();
        assert_eq!(refused.code, ErrorCode(-32000));
        assert!(
            refused.message.contains("too many calls at once"),
            "{}",
            refused.message
        );
        drop(held);
        // Given back: the bytes bound alone now.
        let big = s.enqueue(&arguments(MAX_QUEUED_BYTES / 2)).unwrap();
        assert!(s.enqueue(&arguments(MAX_QUEUED_BYTES / 2)).is_err());
        drop(big);
        assert!(s.enqueue(&arguments(MAX_QUEUED_BYTES / 2)).is_ok());
        assert_eq!(s.queue.lock().unwrap().calls, 0);
    }
}
