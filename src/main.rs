use std::process::ExitCode;

use hpacalc::{exit_codes, term};

/// mimalloc serves every allocation of the binary. A sync of `serve` makes millions of
/// short-lived allocations (each pod of each HPA's share becomes a scenario's pod); glibc's
/// allocator took about a fifth of a sync's CPU, and musl's, in the static image, is slower
/// still. The benchmark of a sync (`examples/serve_sync.rs`) declares the same allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match hpacalc::cli::try_parse_args(std::env::args_os()) {
        Ok(cli) => cli,
        Err(err) => return ExitCode::from(term::clap_exit_code(&err)),
    };
    match hpacalc::run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if term::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            term::print_error(&err);
            ExitCode::from(exit_codes::of(&err))
        }
    }
}
