//! `karrow`: the karrow command line. Subcommands live in `commands/`, one file each.

mod commands;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// karrow: native Kafka serde for Apache Flink.
#[derive(Debug, Parser)]
#[command(name = "karrow", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Top-level subcommands (`bench`, `corpus` and `pipe` will join `registry`).
#[derive(Debug, Subcommand)]
enum Command {
    /// Schema registry tools.
    Registry(commands::registry::RegistryArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let result = match cli.command {
        Command::Registry(args) => commands::registry::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("karrow: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Prints help/version as clap does; any other parse error becomes one line and exit code 2.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // Printing help can only fail if stdout is gone; the exit code still tells.
            let _ = e.print();
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
        _ => {
            let rendered = e.to_string();
            let line = rendered
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or("invalid arguments");
            let line = line.strip_prefix("error: ").unwrap_or(line);
            eprintln!("karrow: {line} (try 'karrow --help')");
            ExitCode::from(2)
        }
    }
}
