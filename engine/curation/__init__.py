"""What a reviewer can do to notes (the review app's actions): the engine's top layer.

actions.py  retire, restore, keep, edit, merge, decide a conflict, undo: each a soft change with events
"""
