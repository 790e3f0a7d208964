"""The offline pair judge's weights (engine/judgments/pair_judge.py).

Written by ``python -m bench.curation.fit --write``: logistic weights fitted on the labelled
sets' tuning split only (bench/curation/sets.py), thresholds chosen there too. Do not edit by hand.
"""

CHANGE: dict[str, float] = {
    "similarity": 0.8297,
    "swapped": -0.101,
    "gone_share": -1.3053,
    "added_share": 0.9063,
    "overlap": -0.1479,
    "jaccard": -0.2735,
    "same_subject": -0.7301,
    "relative": -1.291,
    "slot": -0.6385,
    "negation": 0.0,
    "number": 0.186,
    "change_rule": 0.0,
    "numbers_differ": 1.1557,
    "change_word": 1.2454,
    "history_new": -0.7506,
    "history_old": 0.7456,
    "plan_new": -0.6762,
    "question_new": -0.4764,
    "polarity": 0.7057,
    "excludes": 1.1351,
    "negation_differs": 1.6609,
    "new_in_old": -0.4958,
    "old_in_new": -0.365,
    "identical": 0.0,
    "zh": -0.0641,
    "bias": -0.514,
}
SAME: dict[str, float] = {
    "similarity": -2.0095,
    "swapped": -0.1806,
    "gone_share": -1.0071,
    "added_share": -0.9389,
    "overlap": 2.0617,
    "jaccard": 1.8278,
    "same_subject": -0.1361,
    "relative": -1.8793,
    "slot": -0.0395,
    "negation": 0.0,
    "number": -0.2418,
    "change_rule": 0.0,
    "numbers_differ": -2.3009,
    "change_word": -0.7139,
    "history_new": 0.0233,
    "history_old": -0.7242,
    "plan_new": 0.2669,
    "question_new": 0.4567,
    "polarity": -0.6408,
    "excludes": -0.9657,
    "negation_differs": -1.2857,
    "new_in_old": -0.16,
    "old_in_new": -0.8315,
    "identical": 0.0,
    "zh": 0.3998,
    "bias": 1.8374,
}
CHANGE_AT = 0.7424  # a conflict: at least 0.8 precision on the tuning rows
ASK_AT = 0.3086  # a pair waits for a person: 0.92 of the tuning rows' contradictions
SAME_AT = 1.0  # offered as one fact: at least 0.85 precision on the tuning rows
