use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match hpacalc::cli::try_parse_args(std::env::args_os()) {
        Ok(cli) => cli,
        Err(err) => return ExitCode::from(hpacalc::clap_exit_code(&err)),
    };
    match hpacalc::run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if hpacalc::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            hpacalc::print_error(&err);
            ExitCode::from(hpacalc::exit_code(&err))
        }
    }
}
