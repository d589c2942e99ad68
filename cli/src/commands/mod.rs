//! One module per `karrow` subcommand.

pub mod bench;
pub mod registry;
