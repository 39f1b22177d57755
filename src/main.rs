use std::process::ExitCode;

use hpacalc::{exit_codes, term};

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
