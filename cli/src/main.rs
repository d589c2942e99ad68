//! `karrow`: the karrow command line. Subcommands live in `commands/`, one file each.

mod commands;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Counts allocations for `karrow bench` (inert unless a measurement switches it on).
#[global_allocator]
static ALLOCATOR: commands::bench::alloc::CountingAllocator =
    commands::bench::alloc::CountingAllocator;

/// karrow: native Kafka serde for Apache Flink.
#[derive(Debug, Parser)]
#[command(name = "karrow", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Top-level subcommands (`corpus` and `pipe` will join these).
#[derive(Debug, Subcommand)]
enum Command {
    /// Benchmark a format on your schema and data: native against stock Flink, verified.
    Bench(Box<commands::bench::BenchArgs>),
    /// Schema registry tools.
    Registry(commands::registry::RegistryArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let result = match cli.command {
        Command::Bench(args) => {
            return match commands::bench::run(*args) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("karrow: {e}");
                    ExitCode::from(e.exit_code())
                }
            }
        }
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
            let mut lines = rendered.lines().map(str::trim).filter(|l| !l.is_empty());
            let first = lines.next().unwrap_or("invalid arguments");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            // "the following required arguments were not provided:" names them on the next line.
            let line = match lines.next() {
                Some(next) if first.ends_with(':') && !next.starts_with("Usage:") => {
                    format!("{first} {next}")
                }
                _ => first.to_string(),
            };
            eprintln!("karrow: {line} (try 'karrow --help')");
            ExitCode::from(2)
        }
    }
}
