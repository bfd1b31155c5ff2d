"""Files, folders and stdin → API objects with provenance; validation; admission emulation."""
