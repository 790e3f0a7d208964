"""What the write path attaches to a note besides its text, read again by retrieval and the layers.

importance.py  1–10 at write (offline rating) and the forgetting-curve blend retrieval applies
facts.py       subject–relation→object triples with validity, recorded from a note
pairs.py       two notes put before a person (a conflict or a possible merge), opened and closed
"""
