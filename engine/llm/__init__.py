"""The LLM layer: the one client that calls a model, its configuration, reply parsing, providers, prompts and the offline stand-ins."""
