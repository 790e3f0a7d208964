"""Judgments about pairs of notes made without a model: the pair judge and the triage that acts on it.

cues.py         words of change, history, plans, questions, likings; things that exclude each other
pair_judge.py   the evidence of a pair and its two likelihoods (change, same), with a plain reason
pair_weights.py the judge's weights, fitted on the blind tuning split (python -m bench.curation.fit)
triage.py       the one place that says what a pair becomes: conflict, a pair for a person, a fold, nothing
"""
