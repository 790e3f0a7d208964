"""Test support, never imported by the product: test settings, test doubles and live-server helpers.

settings.py      the test suite's Django settings (embeds with test-hash)
embedders.py     HashEmbedder, the test-only embedder registered under the name ``test-hash``
llm_server.py    a fake LLM provider on 127.0.0.1 speaking the OpenAI and Anthropic wire formats
fake_runtime.py  points the process's runtime LLM at that fake server
live_server.py   a real amem server process for live tests and load benchmarks
texts.py         unrelated texts for concurrent-write tests and load benchmarks
"""
