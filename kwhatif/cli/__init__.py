"""Click commands: options, loading, exit codes. No scheduling logic lives here."""
