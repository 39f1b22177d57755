use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = hpacalc::cli::parse_args(std::env::args_os());
    match hpacalc::run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if hpacalc::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            anstream::eprintln!("{}: {err:#}", error_label());
            ExitCode::from(hpacalc::exit_code(&err))
        }
    }
}

fn error_label() -> String {
    let style = anstyle::Style::new()
        .bold()
        .fg_color(Some(anstyle::AnsiColor::Red.into()));
    format!("{style}error{style:#}")
}
