//! One module per `karrow` subcommand.

pub mod registry;
