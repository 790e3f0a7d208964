"""Review app views: ``screens`` (GET pages and their htmx partials), ``posts`` (actions)."""
