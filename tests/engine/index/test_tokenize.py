from engine.index.tokenize import tokenize, words


def test_punctuation_is_dropped_and_words_lower_cased():
    assert tokenize("Hello, World!") == ["hello", "world"]


def test_underscores_and_digits_are_word_characters():
    assert tokenize("foo_bar 123") == ["foo_bar", "123"]


def test_empty_and_punctuation_only_text_yield_nothing():
    assert tokenize("") == []
    assert tokenize("!!! ??? ...") == []


def test_chinese_is_segmented_into_words():
    tokens = tokenize("记忆系统很好用")
    assert len(tokens) > 1
    assert "记忆" in tokens


def test_latin_inside_chinese_is_split_out_and_lower_cased():
    assert words("检索Qdrant结果") == ["检索", "qdrant", "结果"]
    assert "qdrant" in tokenize("检索Qdrant结果")


def test_chinese_bm25_terms_are_every_dictionary_word_character_and_character_pair():
    # 王小明 is one word to jieba; 小明 is a dictionary word inside it, 王 a character,
    # 王小 a pair: a query cut differently from the note still meets it.
    terms = set(tokenize("王小明"))
    assert {"王小明", "小明", "王", "小", "明", "王小"} <= terms


def test_words_for_people_stay_whole_words():
    # Offline keywords are read by people: no single characters or arbitrary pairs.
    assert words("王小明是我的同学") == ["王小明", "是", "我", "的", "同学"]


def test_cyrillic_hangul_and_accented_latin_yield_whole_words():
    # The seed engine produced no tokens for these scripts and split "déjà" at the accent.
    assert tokenize("Привет мир") == ["привет", "мир"]
    assert tokenize("안녕하세요 세계") == ["안녕하세요", "세계"]
    assert tokenize("café déjà vu") == ["café", "déjà", "vu"]


def test_full_width_letters_fold_to_ascii():
    assert tokenize("ＱＤＲＡＮＴ") == ["qdrant"]


def test_stop_words_are_dropped_only_on_request():
    assert "the" in tokenize("the cat")
    assert tokenize("the cat", drop_stop_words=True) == ["cat"]


def test_english_words_are_stemmed_so_forms_of_a_word_meet():
    # A question says "paint" and "camp"; the turn said "paintings" and "went camping".
    assert tokenize("paintings painted painting") == ["paint", "paint", "paint"]
    assert tokenize("camping camps") == ["camp", "camp"]


def test_stop_words_are_dropped_before_stemming():
    # "was" would stem to "wa" and slip past the stop list if the order were reversed.
    assert tokenize("it was fun", drop_stop_words=True) == ["fun"]


def test_only_plain_latin_words_are_stemmed():
    assert tokenize("Привет мир") == ["привет", "мир"]
    assert "记忆系统" in tokenize("记忆系统")
    assert words("Paintings") == ["paintings"]
    assert tokenize("v2 42") == ["v2", "42"]
