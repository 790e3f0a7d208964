"""The review app has no models of its own: it is a surface over memories."""
