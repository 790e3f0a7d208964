"""Judgments the nightly jobs make for a person: the pair judge and its triage, and two note models.

cues.py         words of change, history, plans, questions, likings; things that exclude each other
pair_judge.py   the evidence of a pair and its two likelihoods (change, same), with a plain reason
pair_weights.py the judge's weights, fitted on the blind tuning split (python -m bench.curation.fit)
triage.py       the one place that says what a pair becomes: conflict, a pair for a person, a fold, nothing
note_quality.py whether a note holds little to keep: logistic weights over its E5 vector
                (note_quality_weights.json, python -m bench.curation.fit_quality; card: note_quality.md)
change_note.py  whether a note says a fact changed, the pair sweep's ranking with the judge
                (change_note_weights.json, python -m bench.curation.fit_change; card: change_note.md)
note_vectors.py the E5 vectors both models read, cached by text for a night
fitted.py       a fitted model's numbers read from (and written to) the JSON file beside its code
"""
