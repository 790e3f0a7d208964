"""Hand-written pairs and single notes for the curation evaluation (English and Chinese).

Two kinds of rows, both written for this benchmark (no third-party text):

* free rows: one pair or note each, written out in full;
* template rows: a sentence pair with slots ({p} a person, {c1} a city …) filled from
  the small lists below. Every template is one *family*; the held-out split takes whole
  families, so a rule tuned on some templates is measured on templates it never saw.

Labels (pairs): contradiction (both cannot hold now; a person would want to choose),
compatible (related, sharing words or a negation, both can hold), related (two notes of one
speaker from one conversation: both hold, and may overlap; from public data), duplicate (the same
fact, near-identical words), paraphrase (the same fact, reworded), different (two facts
that must stay two notes). ``kind`` says what makes a pair hard (first_person,
state_change, number, date, negation, other_subject …).

Labels (notes): vague (refers to something without saying it), gibberish, fragment
(a sentence cut off), fine.
"""

from __future__ import annotations

PEOPLE = ["Ana", "Ben", "Chloe", "Diego", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kemal", "Lena"]
CITIES = ["Porto", "Lisbon", "Berlin", "Madrid", "Lyon", "Oslo", "Vienna", "Prague", "Dublin", "Austin", "Denver"]
COMPANIES = ["Farfetch", "Siemens", "Spotify", "Zalando", "Shopify", "Atlassian", "Bosch", "Nokia", "Canva"]
MONTHS = ["March", "April", "May", "June", "July", "August", "September", "October"]
EDITORS = ["Vim", "Emacs", "VS Code", "IntelliJ", "Sublime Text", "Neovim"]
JOBS = ["nurse", "teacher", "software engineer", "chef", "lawyer", "photographer", "accountant"]
LIKES = ["spicy food", "jazz", "horror films", "running", "board games", "green tea", "camping"]
ZH_PEOPLE = ["小王", "李雷", "韩梅梅", "张伟", "刘洋", "陈静", "赵敏", "周杰"]
ZH_CITIES = ["北京", "上海", "广州", "深圳", "杭州", "成都", "南京", "西安"]
ZH_COMPANIES = ["腾讯", "阿里巴巴", "百度", "华为", "字节跳动", "美团", "小米"]

# (family, label, kind, lang, text A, text B). A is written first, B a day later.
PAIR_TEMPLATES: list[tuple[str, str, str, str, str, str]] = [
    # --- contradictions ---
    ("t_live_moved", "contradiction", "state_change", "en", "{p} lives in {c1}.", "{p} moved to {c2} last spring."),
    (
        "t_live_now",
        "contradiction",
        "state_change",
        "en",
        "{p} lives in {c1} with a roommate.",
        "{p} now lives in {c2}.",
    ),
    ("t_i_live_moved", "contradiction", "first_person", "en", "I live in {c1}.", "I moved to {c2}."),
    (
        "t_turn_live",
        "contradiction",
        "first_person",
        "en",
        "{p}: I live in {c1} and I love it here.",
        "{p}: We finally moved to {c2} last month!",
    ),
    (
        "t_work_now",
        "contradiction",
        "state_change",
        "en",
        "{p} works at {co1} as an engineer.",
        "{p} now works at {co2}.",
    ),
    ("t_work_left", "contradiction", "state_change", "en", "{p} works at {co1}.", "{p} left {co1} and joined {co2}."),
    ("t_work_nolonger", "contradiction", "negation", "en", "{p} works at {co1}.", "{p} no longer works at {co1}."),
    ("t_age", "contradiction", "number", "en", "{p} is {n} years old.", "{p} is {n2} years old."),
    ("t_kids", "contradiction", "number", "en", "{p} has {k} children.", "{p} has {k2} children."),
    ("t_birthday", "contradiction", "date", "en", "{p}'s birthday is on {m1} {d}.", "{p}'s birthday is on {m2} {d}."),
    (
        "t_offsite",
        "contradiction",
        "date",
        "en",
        "The team offsite is on {m1} {d}.",
        "The team offsite was moved to {m2} {d2}.",
    ),
    ("t_meat", "contradiction", "negation", "en", "{p} eats meat.", "{p} doesn't eat meat anymore."),
    ("t_like", "contradiction", "negation", "en", "{p} likes {x}.", "{p} doesn't like {x}."),
    (
        "t_editor",
        "contradiction",
        "state_change",
        "en",
        "{p} uses {e1} for writing code.",
        "{p} switched from {e1} to {e2}.",
    ),
    ("t_i_job", "contradiction", "first_person", "en", "I work as a {j1}.", "I'm a {j2} now."),
    (
        "t_i_coffee",
        "contradiction",
        "first_person",
        "en",
        "I drink coffee every morning.",
        "I stopped drinking coffee.",
    ),
    ("t_i_work_at", "contradiction", "first_person", "en", "I work at {co1}.", "I don't work at {co1} anymore."),
    ("t_zh_live", "contradiction", "state_change", "zh", "{zp}和家人一起住在{zc1}。", "{zp}上个月搬到了{zc2}。"),
    ("t_zh_i_live", "contradiction", "first_person", "zh", "我和家人一起住在{zc1}。", "我上个月搬到{zc2}了。"),
    ("t_zh_work", "contradiction", "state_change", "zh", "{zp}在{zco1}公司做工程师。", "{zp}现在在{zco2}上班。"),
    ("t_zh_age", "contradiction", "number", "zh", "{zp}今年已经{n}岁了。", "{zp}说自己今年{n2}岁了。"),
    ("t_zh_coffee", "contradiction", "negation", "zh", "{zp}每天早上喝咖啡。", "{zp}现在不再喝咖啡了。"),
    ("t_zh_birthday", "contradiction", "date", "zh", "{zp}的生日是{mn1}月{d}日。", "{zp}的生日是{mn2}月{d}日。"),
    ("t_zh_cat", "contradiction", "negation", "zh", "{zp}家里养了一只猫。", "{zp}家里从来没有养过猫。"),
    # --- compatible: shared words, a negation or a number, both true ---
    ("k_detail", "compatible", "shared_words", "en", "{p} lives in {c1}.", "{p} lives in {c1} with two cats."),
    ("k_weekends", "compatible", "negation", "en", "{p} works at {co1}.", "{p} doesn't work on weekends."),
    ("k_hike", "compatible", "negation", "en", "{p} loves hiking in the mountains.", "{p} never hikes alone."),
    ("k_age_cats", "compatible", "number", "en", "{p} is {n} years old.", "{p} has {k} cats."),
    ("k_runs", "compatible", "number", "en", "{p} ran 5 km on Monday.", "{p} ran 10 km on Saturday."),
    ("k_brother", "compatible", "other_subject", "en", "{p} works at {co1}.", "{p}'s brother doesn't work at {co1}."),
    ("k_sister", "compatible", "other_subject", "en", "{p} lives in {c1}.", "{p}'s sister moved to {c2}."),
    ("k_i_parents", "compatible", "other_subject", "en", "I live in {c1}.", "My parents moved to {c2}."),
    (
        "k_now_garden",
        "compatible",
        "state_word",
        "en",
        "{p} lives in {c1}.",
        "{p} now has a garden at the house in {c1}.",
    ),
    ("k_still", "compatible", "state_word", "en", "{p} plays the guitar.", "{p} still plays the guitar every week."),
    ("k_like_not", "compatible", "negation", "en", "{p} likes {x}.", "{p} does not like {y}."),
    ("k_zh_sister", "compatible", "other_subject", "zh", "{zp}和家人一起住在{zc1}。", "{zp}的妹妹搬到了{zc2}。"),
    ("k_zh_night", "compatible", "negation", "zh", "{zp}平时很喜欢喝咖啡。", "{zp}晚上一般不喝咖啡。"),
    ("k_zh_age_cats", "compatible", "number", "zh", "{zp}今年已经{n}岁了。", "{zp}家里养了{k}只猫。"),
    ("k_zh_i_parents", "compatible", "other_subject", "zh", "我和家人一起住在{zc1}。", "我的父母一直住在{zc2}。"),
    # --- duplicates and paraphrases ---
    (
        "d_excl",
        "duplicate",
        "punctuation",
        "en",
        "{p} works at {co1} as an engineer.",
        "{p} works at {co1} as an engineer!",
    ),
    (
        "d_detail",
        "duplicate",
        "near_copy",
        "en",
        "{p} lives in {c1} and likes it there.",
        "{p} lives in {c1} and really likes it there.",
    ),
    (
        "p_engineer",
        "paraphrase",
        "reworded",
        "en",
        "{p} works at {co1} as an engineer.",
        "{p} is an engineer at {co1}.",
    ),
    ("d_zh", "duplicate", "near_copy", "zh", "{zp}在{zco1}公司做工程师。", "{zp}在{zco1}公司当工程师。"),
    # --- different facts ---
    ("f_trips", "different", "number", "en", "{p} went to {c1} in {m1}.", "{p} went to {c2} in {m2}."),
    ("f_likes", "different", "shared_words", "en", "{p} likes {x}.", "{p} likes {y}."),
    ("f_zh_trips", "different", "shared_words", "zh", "{zp}{mn1}月去了{zc1}旅游。", "{zp}{mn2}月去了{zc2}旅游。"),
]

# Free rows: (label, kind, lang, text A, text B).
FREE_PAIRS: list[tuple[str, str, str, str, str]] = [
    # contradictions, English
    ("contradiction", "first_person", "en", "I live in Porto.", "I moved to Lisbon."),
    ("contradiction", "negation", "en", "Ana works at Farfetch.", "Ana no longer works at Farfetch."),
    ("contradiction", "number", "en", "Mia is 7 years old.", "Mia just turned 9."),
    ("contradiction", "state_change", "en", "Alex lives in Paris.", "Alex now lives in Lyon."),
    ("contradiction", "negation", "en", "Alex likes tea.", "Alex no longer likes tea."),
    (
        "contradiction",
        "number",
        "en",
        "The staging database runs PostgreSQL 15.",
        "The staging database runs PostgreSQL 16.",
    ),
    (
        "contradiction",
        "number",
        "en",
        "The API rate limit is 600 requests per minute.",
        "The API rate limit is 300 requests per minute.",
    ),
    (
        "contradiction",
        "date",
        "en",
        "The product launch is planned for 12 March.",
        "The product launch is planned for 20 April.",
    ),
    ("contradiction", "state_change", "en", "Tom drives a Toyota.", "Tom sold his Toyota and switched to a bike."),
    ("contradiction", "negation", "en", "The user is allergic to peanuts.", "The user is not allergic to peanuts."),
    ("contradiction", "first_person", "en", "I'm vegetarian.", "I started eating meat again."),
    ("contradiction", "first_person", "en", "My favourite colour is blue.", "My favourite colour is green."),
    ("contradiction", "first_person", "en", "I have two sisters.", "I have three sisters."),
    ("contradiction", "state_change", "en", "Priya is single.", "Priya got married in June."),
    ("contradiction", "number", "en", "Our office is on the 4th floor.", "Our office is on the 7th floor."),
    (
        "contradiction",
        "state_change",
        "en",
        "The project uses MySQL.",
        "The project switched from MySQL to PostgreSQL.",
    ),
    ("contradiction", "negation", "en", "Sam smokes.", "Sam quit smoking."),
    (
        "contradiction",
        "state_change",
        "en",
        "Lucas studies medicine in Leeds.",
        "Lucas dropped out of medicine and now studies law.",
    ),
    (
        "contradiction",
        "date",
        "en",
        "The dentist appointment is on Tuesday.",
        "The dentist appointment is on Thursday.",
    ),
    ("contradiction", "number", "en", "The flat costs 900 euros a month.", "The flat costs 1200 euros a month."),
    (
        "contradiction",
        "first_person",
        "en",
        "User: I work from home every day.",
        "User: I don't work from home anymore.",
    ),
    ("contradiction", "first_person", "en", "I'm 34 years old.", "I'm 36 years old."),
    ("contradiction", "negation", "en", "Nora owns a car.", "Nora doesn't own a car."),
    (
        "contradiction",
        "state_change",
        "en",
        "The deploys run on Jenkins.",
        "The deploys moved from Jenkins to GitHub Actions.",
    ),
    (
        "contradiction",
        "negation",
        "en",
        "Carlos is a member of the chess club.",
        "Carlos is no longer a member of the chess club.",
    ),
    (
        "contradiction",
        "first_person",
        "en",
        "I prefer window seats on flights.",
        "I don't prefer window seats on flights.",
    ),
    # contradictions, Chinese
    ("contradiction", "first_person", "zh", "我一直住在杭州市区。", "我上个月搬到上海了。"),
    ("contradiction", "number", "zh", "小明今年已经七岁了。", "小明今年已经九岁了。"),
    ("contradiction", "negation", "zh", "老张每天都要抽一包烟。", "老张去年已经把烟戒了。"),
    ("contradiction", "state_change", "zh", "李娜在一家银行工作多年。", "李娜辞职了，现在在学校当老师。"),
    ("contradiction", "negation", "zh", "用户吃花生会严重过敏。", "用户其实对花生不过敏。"),
    ("contradiction", "number", "zh", "这套房子的房租每月三千元。", "这套房子的房租每月四千元。"),
    ("contradiction", "date", "zh", "项目周会定在每周二上午。", "项目周会改到每周四上午了。"),
    ("contradiction", "first_person", "zh", "我是一个严格的素食者。", "我现在已经开始吃肉了。"),
    ("contradiction", "state_change", "zh", "项目使用MySQL数据库。", "项目从MySQL换成了PostgreSQL。"),
    ("contradiction", "first_person", "zh", "我和妻子一共有两个孩子。", "我和妻子一共有三个孩子。"),
    ("contradiction", "negation", "zh", "王芳平时特别喜欢吃辣。", "王芳平时一点也不喜欢吃辣。"),
    ("contradiction", "state_change", "zh", "陈老师一家住在成都市区。", "陈老师已经搬去重庆了。"),
    ("contradiction", "date", "zh", "航班是3月5日出发。", "航班改成3月8日出发。"),
    ("contradiction", "first_person", "zh", "我每天骑自行车上班。", "我不再骑自行车上班了。"),
    # compatible, English
    (
        "compatible",
        "negation",
        "en",
        "Sam struggles with cravings for sugary drinks.",
        "Sam still enjoys soda and candy.",
    ),
    (
        "compatible",
        "negation",
        "en",
        "Melanie encourages her son not to give up.",
        "Melanie supports her son's football practice.",
    ),
    ("compatible", "negation", "en", "Alex likes tea.", "Alex doesn't like coffee."),
    ("compatible", "number", "en", "Mia is 7 years old.", "Mia has 2 goldfish."),
    ("compatible", "other_subject", "en", "Ana works at Farfetch.", "Ana's husband works at Zalando."),
    ("compatible", "state_word", "en", "Alex lives in Paris.", "Alex is now learning the piano."),
    ("compatible", "negation", "en", "I like running in the morning.", "I never run in the rain."),
    (
        "compatible",
        "number",
        "en",
        "The staging database runs PostgreSQL 15.",
        "The production database runs PostgreSQL 16.",
    ),
    (
        "compatible",
        "negation",
        "en",
        "Jon wants to open a dance studio.",
        "Jon doesn't want to give up on his dance studio.",
    ),
    ("compatible", "date", "en", "Caroline went to a support group on 7 May.", "Caroline went to the beach on 9 June."),
    (
        "compatible",
        "negation",
        "en",
        "Gina lost her job at the store.",
        "Gina is not giving up on starting her own clothing business.",
    ),
    ("compatible", "state_word", "en", "Tom moved to Berlin in 2019.", "Tom has lived in Berlin since 2019."),
    ("compatible", "negation", "en", "Evan can't eat gluten.", "Evan bakes gluten-free bread on Sundays."),
    ("compatible", "number", "en", "The team has 8 engineers.", "The team ships a release every 2 weeks."),
    ("compatible", "other_subject", "en", "I'm a teacher.", "My wife is a nurse."),
    ("compatible", "negation", "en", "Deborah is not a morning person.", "Deborah does yoga in the evening."),
    (
        "compatible",
        "state_word",
        "en",
        "Nate now plays video games professionally.",
        "Nate won a video game tournament last week.",
    ),
    (
        "compatible",
        "negation",
        "en",
        "John never misses his daughter's recitals.",
        "John went to his daughter's piano recital.",
    ),
    ("compatible", "number", "en", "Audrey has 3 dogs.", "Audrey walks her dogs 2 times a day."),
    ("compatible", "negation", "en", "The cache is not persisted to disk.", "The cache is stored in Redis."),
    # compatible, Chinese
    ("compatible", "negation", "zh", "小李平时很喜欢喝茶。", "小李平时不喜欢喝咖啡。"),
    ("compatible", "other_subject", "zh", "我在上海的一家公司工作。", "我妻子在北京的一家医院工作。"),
    ("compatible", "number", "zh", "小明今年已经七岁了。", "小明家里养了两条金鱼。"),
    ("compatible", "negation", "zh", "用户一点也不喜欢早起。", "用户晚上十点以后才睡觉。"),
    ("compatible", "state_word", "zh", "张伟一家人一直住在北京。", "张伟现在在学习钢琴。"),
    ("compatible", "negation", "zh", "她从不一个人去爬山。", "她很喜欢和朋友一起爬山。"),
    # duplicates and paraphrases
    (
        "duplicate",
        "near_copy",
        "en",
        "Caroline attended an LGBTQ support group.",
        "Caroline attended an LGBTQ support group recently.",
    ),
    (
        "duplicate",
        "near_copy",
        "en",
        "The user prefers dark mode in every app.",
        "The user prefers dark mode in all apps.",
    ),
    (
        "duplicate",
        "near_copy",
        "en",
        "Bob's dentist appointment is on Friday at 10.",
        "Bob's dentist appointment is Friday at 10.",
    ),
    (
        "duplicate",
        "near_copy",
        "en",
        "Maria volunteers at the homeless shelter.",
        "Maria volunteers at a homeless shelter.",
    ),
    ("paraphrase", "reworded", "en", "The user is allergic to peanuts.", "The user has a peanut allergy."),
    ("paraphrase", "reworded", "en", "Jon started his own dance studio.", "Jon opened a dance studio of his own."),
    (
        "paraphrase",
        "reworded",
        "en",
        "Tim collects Harry Potter memorabilia.",
        "Tim is a collector of Harry Potter merchandise.",
    ),
    ("duplicate", "near_copy", "zh", "用户在手机上喜欢深色模式。", "用户在手机上喜欢用深色模式。"),
    ("duplicate", "near_copy", "zh", "小王每天早上去公园跑步。", "小王每天早上都去公园跑步。"),
    ("paraphrase", "reworded", "zh", "张伟从小就对花生过敏。", "张伟不能吃花生，会过敏。"),
    # different facts
    (
        "different",
        "shared_words",
        "en",
        "Caroline went to a pride parade in June.",
        "Caroline went to a counseling workshop in July.",
    ),
    ("different", "shared_words", "en", "Nate adopted a turtle.", "Nate adopted a second turtle named Tank."),
    ("different", "shared_words", "en", "The backup job runs at 2 am.", "The report job runs at 6 am."),
    (
        "different",
        "shared_words",
        "en",
        "Joanna wrote a screenplay about loss.",
        "Joanna wrote a screenplay about friendship.",
    ),
    ("different", "shared_words", "zh", "小王周一去了图书馆。", "小王周三去了游泳馆。"),
    ("different", "shared_words", "zh", "韩梅梅送给妈妈一条围巾。", "韩梅梅送给爸爸一本书。"),
]

# Single notes: (label, lang, text).
FREE_NOTES: list[tuple[str, str, str]] = [
    ("vague", "en", "Something about the thing we discussed earlier."),
    ("vague", "en", "Remember that thing from before."),
    ("vague", "en", "As mentioned, the stuff we talked about."),
    ("vague", "en", "That issue from last time is still there."),
    ("vague", "en", "He said it was fine, whatever it was."),
    ("vague", "en", "Follow up on the thing."),
    ("vague", "en", "We talked about it again today."),
    ("vague", "en", "It is what it is, I guess."),
    ("vague", "en", "Something happened with them yesterday."),
    ("vague", "en", "The usual stuff, nothing new."),
    ("vague", "en", "Same as before, see above."),
    ("vague", "en", "They mentioned something about it."),
    ("vague", "en", "Check on that later."),
    ("vague", "en", "Things are going okay, I think."),
    ("vague", "en", "She told me about it the other day."),
    ("vague", "en", "This is important, remember it."),
    ("vague", "en", "We should do that again sometime."),
    ("vague", "en", "Discussed the stuff from earlier."),
    ("vague", "en", "It was about the other thing."),
    ("vague", "en", "Not sure about that one yet."),
    ("vague", "en", "The thing we said we would do."),
    ("vague", "en", "Some stuff came up, will deal with it."),
    ("vague", "en", "Like I said before, that."),
    ("vague", "en", "Something something, you know."),
    ("vague", "en", "Refer to the previous conversation."),
    ("vague", "en", "He did it again, as expected."),
    ("vague", "en", "That was interesting, more later."),
    ("vague", "en", "Okay, sounds good to me!"),
    ("vague", "en", "Thanks, that means a lot!"),
    ("vague", "en", "Yeah, I know what you mean."),
    ("vague", "en", "Wow, that's really cool!"),
    ("vague", "en", "Haha, totally agree with you."),
    ("vague", "en", "Sure, let's talk about it later."),
    ("vague", "en", "Oh really? Tell me more."),
    ("vague", "en", "That's great to hear, good for you."),
    ("vague", "en", "The same thing as last week."),
    ("vague", "en", "Whatever we decided on earlier."),
    ("vague", "en", "More on this topic soon."),
    ("vague", "en", "Stuff and things, as usual."),
    ("vague", "en", "It went well, I think so anyway."),
    ("vague", "zh", "就是之前说的那个事情。"),
    ("vague", "zh", "那件事我们后面再说吧。"),
    ("vague", "zh", "和上次一样，没什么变化。"),
    ("vague", "zh", "他说的那个东西还没弄好。"),
    ("vague", "zh", "记得之前提到的那个问题。"),
    ("vague", "zh", "好的好的，没问题的。"),
    ("vague", "zh", "哈哈，确实是这样的呢。"),
    ("vague", "zh", "这个很重要，要记住这个。"),
    ("vague", "zh", "关于那个事情，我们聊过了。"),
    ("vague", "zh", "嗯嗯，我明白你的意思了。"),
    ("vague", "zh", "就是那样吧，也没办法。"),
    ("vague", "zh", "之前讨论的内容，参考上面。"),
    ("gibberish", "en", "asdkjh qwe zxcmnb"),
    ("gibberish", "en", "lorem ipsum dolor sit amet"),
    ("gibberish", "en", "qwertyuiop asdfghjkl"),
    ("gibberish", "en", "jjjjjjjjjjjjjjjjjj"),
    ("gibberish", "en", "test test test test test"),
    ("gibberish", "en", "aaaaaa bbbbbb cccccc"),
    ("gibberish", "en", "xkcd blorp fnord zzyzx"),
    ("gibberish", "en", "hjkl hjkl hjkl hjkl"),
    ("gibberish", "en", "!!!!!!!!!!!!!!!!!!!!"),
    ("gibberish", "en", "1234567890 0987654321"),
    ("gibberish", "en", "ghfjd ksla qpwoe ruty"),
    ("gibberish", "en", "..... ..... ..... ....."),
    ("gibberish", "en", "sdfsdf sdfsdf sdfsdf"),
    ("gibberish", "en", "zzzzzz zzzzzz zzzzzz"),
    ("gibberish", "en", "mnbvcxz lkjhgfdsa poiuytrewq"),
    ("gibberish", "en", "abc abc abc abc abc abc"),
    ("gibberish", "zh", "啊啊啊啊啊啊啊啊啊啊啊"),
    ("gibberish", "zh", "哈哈哈哈哈哈哈哈哈哈"),
    ("gibberish", "zh", "嗯嗯嗯嗯嗯嗯嗯嗯嗯嗯"),
    ("gibberish", "zh", "测试测试测试测试测试"),
    ("gibberish", "zh", "。。。。。。。。。。。"),
    ("gibberish", "zh", "的的的的的的的的的的的"),
    ("fragment", "en", "And then we went to the"),
    ("fragment", "en", "Because the reason was that"),
    ("fragment", "en", "The meeting with Bob about the"),
    ("fragment", "en", "If we can get the budget for"),
    ("fragment", "en", "She said that the new office would"),
    ("fragment", "en", "After the call with the client and"),
    ("fragment", "en", "When I was in Berlin last year, I"),
    ("fragment", "en", "The main problem with the deploy is"),
    ("fragment", "en", "so we decided to, um, maybe"),
    ("fragment", "en", "Which is why the test keeps"),
    ("fragment", "zh", "因为他昨天跟我说的那个"),
    ("fragment", "zh", "然后我们几个就去了那个"),
    ("fragment", "zh", "关于明天下午会议的那个"),
    ("fragment", "zh", "如果预算能够批下来的话"),
    ("fine", "en", "Alex is vegan."),
    ("fine", "en", "Bob's PIN reset code is 4471."),
    ("fine", "en", "The user prefers dark mode."),
    ("fine", "en", "Deploys happen on Tuesdays."),
    ("fine", "en", "Mia's cat is called Biscuit."),
    ("fine", "en", "The API key rotates every 90 days."),
    ("fine", "en", "I live in Porto."),
    ("fine", "en", "Use pnpm, not npm, in the web repo."),
    ("fine", "en", "Grandma's birthday: 3 June."),
    ("fine", "en", "Kafka topic orders-v2 holds 14 days of data."),
    ("fine", "en", "The user is allergic to shellfish."),
    ("fine", "en", "Prefers email over phone calls."),
    ("fine", "en", "Standup moved to 9:30 on Mondays."),
    ("fine", "en", "Ana speaks Portuguese and Japanese."),
    ("fine", "en", "Qdrant runs embedded in the web process."),
    ("fine", "en", "TODO tomorrow: renew the TLS certificate."),
    ("fine", "en", "It rained all day at the Oslo offsite."),
    ("fine", "en", "He thinks the new logo is too busy."),
    ("fine", "en", "They adopted a rescue greyhound named Pixel."),
    ("fine", "en", "Something went wrong with the nightly backup: disk full on db-2."),
    ("fine", "zh", "用户平时喜欢喝绿茶。"),
    ("fine", "zh", "小王的生日是六月三号。"),
    ("fine", "zh", "服务器每天凌晨两点备份。"),
    ("fine", "zh", "我住在杭州市西湖区。"),
    ("fine", "zh", "他对青霉素严重过敏。"),
    ("fine", "zh", "项目使用PostgreSQL数据库。"),
]


def fill(template: str, slots: dict[str, str]) -> str:
    return template.format(**slots)


def slot_sets(count: int, seed: int) -> list[dict[str, str]]:
    """``count`` slot fillings, deterministic for ``seed``; paired values always differ."""
    import random

    rng = random.Random(seed)
    out = []
    for _ in range(count):
        c1, c2 = rng.sample(CITIES, 2)
        co1, co2 = rng.sample(COMPANIES, 2)
        m1, m2 = rng.sample(MONTHS, 2)
        e1, e2 = rng.sample(EDITORS, 2)
        j1, j2 = rng.sample(JOBS, 2)
        x, y = rng.sample(LIKES, 2)
        zc1, zc2 = rng.sample(ZH_CITIES, 2)
        zco1, zco2 = rng.sample(ZH_COMPANIES, 2)
        mn1, mn2 = rng.sample(range(1, 13), 2)
        n = rng.randint(6, 70)
        k = rng.randint(1, 4)
        d, d2 = rng.sample(range(1, 29), 2)
        out.append(
            {
                "p": rng.choice(PEOPLE),
                "zp": rng.choice(ZH_PEOPLE),
                "c1": c1,
                "c2": c2,
                "co1": co1,
                "co2": co2,
                "m1": m1,
                "m2": m2,
                "e1": e1,
                "e2": e2,
                "j1": j1,
                "j2": j2,
                "x": x,
                "y": y,
                "zc1": zc1,
                "zc2": zc2,
                "zco1": zco1,
                "zco2": zco2,
                "mn1": str(mn1),
                "mn2": str(mn2),
                "n": str(n),
                "n2": str(n + rng.randint(1, 5)),
                "k": str(k),
                "k2": str(k + rng.randint(1, 3)),
                "d": str(d),
                "d2": str(d2),
            }
        )
    return out
