"""Developer tools that are not part of the product (nothing in amem imports them)."""
