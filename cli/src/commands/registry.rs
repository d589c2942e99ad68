//! `karrow registry ...`: run the dev schema registry.

use std::error::Error;
use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use clap::{Args, Subcommand};
use karrow_registry::DevRegistry;

/// Arguments of `karrow registry`.
#[derive(Debug, Args)]
pub struct RegistryArgs {
    #[command(subcommand)]
    command: RegistryCommand,
}

/// Subcommands of `karrow registry`.
#[derive(Debug, Subcommand)]
enum RegistryCommand {
    /// Serve a Confluent-API-compatible dev schema registry until killed.
    Serve(ServeArgs),
}

/// Arguments of `karrow registry serve`.
#[derive(Debug, Args)]
struct ServeArgs {
    /// IP address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8081)]
    port: u16,
    /// Journal file to load the registry from and append each change to (JSON lines,
    /// compacted on start; a whole-state JSON file of older versions is read and converted).
    #[arg(long, value_name = "FILE")]
    persist: Option<PathBuf>,
}

/// Runs a `karrow registry` subcommand.
pub fn run(args: RegistryArgs) -> Result<(), Box<dyn Error>> {
    match args.command {
        RegistryCommand::Serve(serve_args) => serve(serve_args),
    }
}

/// Starts the dev registry, announces its URL on stdout and blocks until the process is killed.
fn serve(args: ServeArgs) -> Result<(), Box<dyn Error>> {
    let handle = DevRegistry::start(SocketAddr::new(args.host, args.port), args.persist)?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "karrow dev registry listening on {}", handle.url())?;
    stdout.flush()?;
    drop(stdout);
    handle.join();
    Ok(())
}
