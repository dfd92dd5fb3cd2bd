"""The model's side of a run: what it is told, the wire that carries it, the conversation it holds.

client        the openai client both agents use: its transport reads and traces every answer once
provider_wire what providers send that differs: repairs, errors in a 200, calls they could not parse
streams       a streamed answer read as the one response it amounts to
conversation  the run's conversation, whichever wire carries it, with each provider's own fields
context       the context budget: large tool results kept, not sent; a search tool over them; compaction
prompts       every text the harness says to the model
"""
