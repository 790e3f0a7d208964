"""Reading text without a model: statements and their slots, contradiction and same-fact rules, what
a chat turn is worth keeping, chatter, sentences (where one ends, two texts kept as one), and the
stop words of each language. Nothing here calls a model or imports Django; the offline LLM provider
(engine/llm/offline.py) and the judge (engine/judgments/) read through it."""
