"""The live service: settings, the match it observes, the stream hub, and the FastAPI app."""
