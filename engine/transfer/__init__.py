"""Import and export: files into memories, lossless export and restore."""
