"""The words of single-valued facts changing: a value changed, is new, is retired, stopped
working; and the words of a phone number. Plain data, one list per concept, each holding
Simplified Chinese, Traditional Chinese (and Cantonese) and English together.

The rules compose these lists (:func:`alternation`, :func:`en_words`): the write path's slot
rules (:mod:`jiyi.write.slots`: which value is the speaker's, which one is retired), the
entity recogniser (:mod:`jiyi.text.entities`: a number is a phone near a phone word) and the
clause-valued changes (:mod:`jiyi.write.meaning`). A word added to a concept here reaches every
rule built from it.

Chinese entries are literal words; English entries are regular-expression fragments read
case-insensitively between word boundaries ("updated?", "cancell?ed").
"""

from __future__ import annotations


def alternation(*lists: tuple[str, ...]) -> str:
    """One alternation of the words of several lists, longest first (a longer word wins over
    its own prefix at the same place: "不用了" over "不用"); each word once."""
    words = list(dict.fromkeys(w for words in lists for w in words))
    return "|".join(sorted(words, key=len, reverse=True))


def en_words(*lists: tuple[str, ...]) -> str:
    r"""English words as one group between Latin word boundaries: ``(?<![A-Za-z0-9_])(?:a|b)
    (?![A-Za-z0-9_])``. A Chinese character next to an English word ends it: Hong Kong and
    Taiwan write English words into Chinese with no space ("my number係…", "用WhatsApp搵我",
    "個plan"), where ``\b`` (which counts 係 as a letter) would see no word."""
    return r"(?<![A-Za-z0-9_])(?:" + alternation(*lists) + r")(?![A-Za-z0-9_])"


# --- a value changed -----------------------------------------------------------------------

#: A change happened ("换了", "改咗", "更新").
CHANGED_ZH: tuple[str, ...] = (
    "变了", "變了", "换了", "換了", "改了", "变咗", "變咗", "换咗", "換咗", "改咗", "转咗", "轉咗",
    "升咗", "更新",
)
CHANGED_EN: tuple[str, ...] = ("changed", "change", "updated?", "switched")
#: Changed to a value ("改成…", "换成…").
CHANGED_TO_ZH: tuple[str, ...] = (
    "改成", "改为", "改為", "换成", "換成", "变成", "變成",
    # changed to calling or sending to ("改打Y", "改寄到Y")
    "改打", "改拨", "改撥", "改寄", "改送", "改发", "改發",
    # Cantonese 做 is 成 after a verb of changing ("改做Y", "轉做Y"); written 为 / 作 too
    "改做", "换做", "換做", "转做", "轉做", "变做", "變做", "转为", "轉為", "改作",
)
#: Now using a value ("现在用…", "改用…").
USING_NOW_ZH: tuple[str, ...] = (
    "现在用", "現在用", "而家用", "改用", "换用", "換用", "转用", "轉用", "宜家用", "依家用",
)
#: The value now ("现在是…", "now").
IS_NOW_ZH: tuple[str, ...] = (
    "现在是", "現在是", "目前是",
    # Cantonese 而家 (宜家, 依家) is 现在, 係 is 是 ("而家係…")
    "而家係", "而家系", "而家是", "宜家係", "依家係", "現在係", "现在系", "目前係",
)
IS_NOW_EN: tuple[str, ...] = ("now",)
#: A new value ("新号", "新邮箱", "new").
NEW_ZH: tuple[str, ...] = (
    "新号", "新號", "新的", "新手机", "新手機", "新电话", "新電話", "新地址", "新邮箱", "新郵箱",
)
NEW_EN: tuple[str, ...] = ("new",)
#: From now on ("以后", "going forward").
FROM_NOW_ON_ZH: tuple[str, ...] = (
    "以后", "以後", "往后", "往後", "今后", "今後",
    # from now on, from today ("从现在开始", "由而家開始", "由今日起")
    "从现在开始", "從現在開始", "从现在起", "從現在起", "由现在开始", "由現在開始", "由而家开始",
    "由而家開始", "由而家起", "从今天起", "從今天起", "从今天开始", "從今天開始", "由今日起", "由今日开始",
    "由今日開始", "从今以后", "從今以後", "之后都", "之後都",
)
#: From now on, at the start of a clause only ("之後WhatsApp我啦", "以后晚上送"): after a time
#: or an event the same words say "after it" ("七点以后", "下班之后"). Regular-expression
#: fragments.
FROM_NOW_ON_LEAD_ZH: tuple[str, ...] = (
    "(?:(?<=^)|(?<=[，,。.;；!！\\s]))(?:之后|之後|以后|以後|往后|往後|今后|今後)",
)
FROM_NOW_ON_EN: tuple[str, ...] = (
    "from now on", "going forward",
    # the same in other Englishes and registers ("from now onwards", "henceforth")
    "from now onwards?", "from here on(?:wards?)?", "moving forward", "henceforth", "hereafter",
    "from today onwards?", "from this (?:week|month) onwards?",
)
#: Moved house ("搬到", "relocated").
MOVED_ZH: tuple[str, ...] = ("搬到", "搬去", "搬家", "搬来", "搬來", "搬咗", "搬了", "搬過去", "搬过去")
MOVED_EN: tuple[str, ...] = ("moved", "moving", "relocated")
#: A level moved up or down ("升到", "downgraded").
LEVEL_MOVED_ZH: tuple[str, ...] = (
    "升级", "升級", "升到", "升为", "升為", "升成", "剛升", "刚升", "降级", "降級", "降到", "降为",
    "降為", "成为", "成為", "降成", "被降", "降咗", "升咗", "升左", "升做", "跌到", "跌咗", "降至", "升至",
    "升去", "转做", "轉做", "转去", "轉去",
)
LEVEL_MOVED_EN: tuple[str, ...] = ("upgraded", "downgraded", "bumped", "promoted", "became",
                                   r"dropped (?:down )?to", r"(?:put|moved|kicked) me (?:in|on|to|into|down to|up to|back to)",
                                   r"qualified for", r"made it to",
                                   # "upgrade 去靈活計劃", "downgrade to Basic"
                                   r"(?:up|down)grade\s*(?:去|到|做|成|to)")
#: A membership the user says has ended ("Plus退了", "88VIP到期了没续", "I let my membership
#: lapse", "cancelled already"): said of the current level or of a membership word, after it,
#: the level is no longer current (read at recall, :mod:`jiyi.recall.keyslots`).
MEMBERSHIP_ENDED_ZH: tuple[str, ...] = (
    "退了", "退掉", "退咗", "取消了", "取消咗", "已取消", "已经取消", "已經取消", "没续", "沒續", "没有续",
    "沒有續", "不续了", "不續了", "唔續", "冇續", "无续费", "到期了", "到期咗", "过期了", "過期了",
    "过咗期", "過咗期", "失效了", "停了", "停咗", "降回普通", "变回普通", "變回普通", "打回原形",
)
MEMBERSHIP_ENDED_EN: tuple[str, ...] = (
    "cancel+ed", "cancel+ing", "lapsed?", "expired", "ended", "ran out", "didn'?t renew",
    "not renew(?:ing)?", "won'?t renew", "stopped paying", "unsubscribed",
    r"let (?:it|my \w+) (?:lapse|expire|go)", r"no longer (?:a )?(?:member|subscribed|paying)",
    r"dropped (?:it|my \w+)", r"quit (?:the|my) \w+",
)
#: Words for a membership itself (what an ending is said of when the level is not named).
MEMBERSHIP_WORDS_ZH: tuple[str, ...] = ("会员", "會員", "会籍", "會籍", "年费", "年費", "订阅", "訂閱")
MEMBERSHIP_WORDS_EN: tuple[str, ...] = ("membership", "member", "subscription", "plan", "tier",
                                        "vip", "plus", "premium")

#: Moved to an address ("搬到…", "moved to …").
MOVED_TO_ZH: tuple[str, ...] = ("搬到了", "搬到", "搬去了", "搬去", "搬家到", "搬咗去", "搬咗到")
MOVED_TO_EN: tuple[str, ...] = ("moved to", "moving to", "relocated to")
#: The nouns of single values, after "新"/"new" ("新邮箱", "new addy").
VALUE_NOUNS_ZH: tuple[str, ...] = (
    "邮箱", "郵箱", "信箱", "电邮", "電郵", "邮件地址", "郵件地址", "号码", "號碼", "手机号码", "手機號碼",
    "手机号", "手機號", "手机", "手機", "电话", "電話", "门号", "門號", "号", "號", "地址", "住址",
    "收件地址", "email", "e-mail", "Email", "E-mail",
)
VALUE_NOUNS_EN: tuple[str, ...] = (
    "e-?mail(?: address)?", "address", "addy", "addr", "number", "phone(?: number)?", "mobile",
    "cell", "place", "home",
)

# --- a value is retired --------------------------------------------------------------------

#: Words that by themselves say a value no longer holds ("停机", "不用了", "no longer"): they
#: mark a change and retire the value they stand by.
RETIRED_ZH: tuple[str, ...] = (
    "旧的", "舊的", "停机", "停機", "不用了", "作废", "作廢", "注销", "註銷",
)
RETIRED_EN: tuple[str, ...] = ("no longer", "anymore", "dead", "disconnected", "cancell?ed")
#: The former one ("之前那个…", "old number").
FORMER_ZH: tuple[str, ...] = (
    "之前的", "之前那个", "之前那個", "原来的", "原來的", "以前的",
    # Cantonese 嗰 is 那, 嘅 is 的 ("之前嗰個", "以前嘅")
    "之前嗰个", "之前嗰個", "之前嗰支", "以前嗰个", "以前嗰個", "原本嗰个", "原本嗰個", "原来嗰个", "原來嗰個",
    "之前嘅", "以前嘅", "原本嘅", "原来嘅", "原來嘅", "舊嘅", "旧嘅",
)
FORMER_EN: tuple[str, ...] = ("old one", "old number")
#: Stopped working ("被盗", "hacked"): said after a value, it is retired; before one, the reason
#: for a new one ("号码丢了，补了张卡…").
BROKEN_ZH: tuple[str, ...] = ("被盗", "被盜", "被黑")
BROKEN_EN: tuple[str, ...] = ("hacked", "compromised", "stolen", "deactivated")
#: Out of service (English only: a change word, not a retiring one next to a value).
OUT_OF_SERVICE_EN: tuple[str, ...] = (
    "out of service", "inactive", "stopped working",
)
#: Stopped working, said after the value only ("X登不上了", "X bounces").
BROKEN_AFTER_ZH: tuple[str, ...] = (
    "盗号", "盜號", "用不了", "不能用了", "登不上", "登唔到", "收不到", "唔用", "冇用", "停咗", "冇再用",
    "失效", "打不通", "打唔通", "登入不了", "登不进", "登不進", "登唔入",
    # no signal ("没信号", "木有信號", "冇訊號")
    "(?:没|沒|木|冇|無|无)有?(?:信号|信號|訊號)",
)
BROKEN_AFTER_EN: tuple[str, ...] = (
    r"bounc\w*", "not working", "doesn't work", "don't work", "no good", "gone", "cut off",
    "shut down", "got blocked",
)
#: Not used any more, not the speaker's, not lived at, not to be sent to ("不再", "不住",
#: "别寄", "not mine"): retire the value they stand by.
NOT_ANY_MORE_ZH: tuple[str, ...] = (
    "不用", "停用", "旧号", "舊號", "旧邮箱", "舊郵箱", "旧地址", "舊地址", "舊嗰", "旧嗰", "舊個",
    "旧个", "唔住", "冇住", "唔再用", "不是我的", "不再", "满了", "滿了", "不住", "没住", "沒住",
    "不寄", "别寄", "別寄", "别送", "別送", "不要寄", "不要送",
    # not mine any more, Cantonese 嘅 is 的 ("唔係我嘅", "已經唔係我㗎喇")
    "唔係我嘅", "唔係我㗎", "唔系我嘅", "唔系我㗎", "已經唔係", "已经唔系", "已經不是", "已经不是",
    # no longer opened or read ("那个邮箱我不开了"), not in use
    "不开了", "不開了", "不看了", "没在用", "沒在用", "冇再開", "冇再开",
    # asked not to be used again ("别再寄…", "不要再打…", "…别打了"): never "别寄错了"
    "(?:别|別|不要|唔好|勿)再(?:寄|送|发|發|打|用|找|联系|聯繫|聯絡)(?![错錯])",
    "(?:别|別|不要|唔好)(?:打|发|發|寄|送)(?:了|啦|喇|咯|囉)",
    "(?:别|別|不要|唔好|勿)再?(?:往|寄到|送到|发到|發到|寄去|送去)",
)
NOT_ANY_MORE_EN: tuple[str, ...] = (
    "any more", "not mine", "isn't mine", "stopped", "don't use", "do not use",
    r"stop (?:using|sending|shipping|mailing|posting|calling|texting)\w*", "no more",
)
#: Before or in time ("之前", "原来", "previous", "used to").
PAST_ZH: tuple[str, ...] = ("原来", "原來", "原本", "之前", "以前")
PAST_EN: tuple[str, ...] = ("old", "previous", "used to", "was using", "were using", "previously",
                            "formerly", "back then", "in the past", "last year", "once used")
#: After a value, these retire *another* one: the value itself is the new one ("the old one").
OTHER_OLD_ZH: tuple[str, ...] = (
    "旧的", "舊的", "旧地址", "舊地址", "旧号", "舊號", "旧邮箱", "舊郵箱", "老的", "原来那", "原來那",
    "之前那", "以前那", "原先那", "原址", "旧址", "舊址",
    # Cantonese 嗰 is 那, 嘅 is 的 ("舊嗰個", "之前嗰個", "舊嘅")
    "舊嗰", "旧嗰", "之前嗰", "以前嗰", "原本嗰", "原來嗰", "原来嗰", "舊嘅", "旧嘅",
    # the old place ("以后送X，别再往老地方寄了")
    "老地方", "旧地方", "舊地方", "老地址", "原地址", "旧家", "舊家",
)
#: Words of using a value ("打…", "寄…", "send it to …"): after a retiring word that belongs to
#: an earlier value ("X不用了 改打Y"), they introduce the current one.
USE_ZH: tuple[str, ...] = (
    "打", "寄", "送", "发", "發", "用", "找", "联系", "聯繫", "聯絡", "传", "傳", "搬到", "搬去",
)
USE_EN: tuple[str, ...] = (
    "call", "text", "ring", "send", "use", "email", "e-mail", "mail", "ship", "reach", "contact",
    "try", "moved to",
)
#: The words that then introduce the current value ("现在", "改成", "instead").
CURRENT_ZH: tuple[str, ...] = (
    "现在", "現在", "新的", "新号", "新號", "改成", "改为", "改為", "换成", "換成", "以后", "以後",
    "今后", "今後",
    # Cantonese: 而家 (宜家, 依家) is 现在, 新嘅 is 新的
    "而家", "宜家", "依家", "新嘅",
)
CURRENT_EN: tuple[str, ...] = ("now", "new", "instead", "switch", "change", *FROM_NOW_ON_EN)

#: A correction of a value just said ("不对，是…", "写错了", "I mean …").
CORRECTION_ZH: tuple[str, ...] = (
    "不对", "不對", "唔係", "唔啱", "打错", "打錯", "写错", "寫錯", "说错", "說錯", "讲错", "講錯", "更正",
    "更正一下", "应该是", "應該是",
)
CORRECTION_EN: tuple[str, ...] = (
    "i mean", "sorry", "wait no", "actually", "correction", "typo", "oops", "scratch that",
    "rather",
)

# --- a value wanted instead (a clause-valued slot: a delivery time, a channel) ---------------

#: Words that want a value instead of another ("改成…", "…不行了", "make it … instead"); regular
#: expression fragments (a lookahead keeps "改天", "换货", "转账" out).
INSTEAD_ZH: tuple[str, ...] = (
    "改(?!天|日)", "换(?![货貨])", "換(?![货貨])", "调(?!查)", "調(?!查)", "转(?![账帐发])",
    "轉(?![賬帳發])", "不行了", "唔得", "不方便了", "最合适", "最合適", "最方便", "最好", "比较好",
    "比較好", "就行", "就好", "才有空", "才方便", "才有人", "更好", "更方便", "好啲", "好D", "方便啲",
    "→",  # "周六→周日 上午10点左右"
    # from now on ("由而家開始…", "之後WhatsApp我啦": at a clause's start, not "七点以后")
    *FROM_NOW_ON_LEAD_ZH, *FROM_NOW_ON_ZH[6:],
)
INSTEAD_EN: tuple[str, ...] = (
    "instead", "make it", r"switch\w*", r"move\w*", r"change\w*", "works? (?:best|better)",
    "(?:is|are|'s|'re|would be|'d be) (?:best|better|easier|easiest)", "suits? (?:me )?better",
    "(?:could|can) you do", "how about", *FROM_NOW_ON_EN, "on second thought",
    "rather", r"prefer\w*", r"shift\w*",
    # a value said to work now, at its clause's end ("no morning drops please, 1 to 5pm works")
    r"works(?: (?:for (?:me|us)|now|fine))?(?=\s*(?:[.!;]|$))",
)

#: Words correcting a value said before ("I meant tues not thurs", "说错了，是周五", "打錯咗"):
#: a clause-valued slot's value said with them replaces the one the user has. Not "sorry",
#: "actually" (they open many a remark).
VALUE_CORRECTED_ZH: tuple[str, ...] = (
    "不对", "不對", "唔啱", "打错", "打錯", "写错", "寫錯", "说错", "說錯", "讲错", "講錯", "更正",
    "搞错", "搞錯", "弄错", "弄錯",
)
VALUE_CORRECTED_EN: tuple[str, ...] = (
    "i meant?", "typo", "scratch that", "wait no", "correction", r"autocorrect\w*", "my (?:bad|mistake)",
    "(?:i )?(?:typed|said|wrote) (?:it )?wrong",
)

# --- a phone number --------------------------------------------------------------------------

#: Words of a phone number ("手机", "號碼", "whatsapp").
PHONE_ZH: tuple[str, ...] = (
    "手机", "手機", "电话", "電話", "号码", "號碼", "联系方式", "聯繫方式", "聯絡方式", "联络", "聯絡",
    "换号", "換號", "新号", "新號", "打我", "打给我", "打給我", "撥", "拨", "门号", "門號",
)
PHONE_EN: tuple[str, ...] = (
    "phone", "number", "cell", "mobile", "reach me", "text me", "whatsapp", "contact",
    # a handphone, as Singapore and Malaysia say ("my hp is 012-…", "H/P")
    "hp", "h/p", "handphone", "hand phone",
)
#: Words pointing back to a value named before them in the message ("换号了。新的是…", "i
#: change number already, new one 8765 4321", "mine is …"): the number after them is of the
#: kind that text names. Regular-expression fragments.
POINTER_BACK_ZH: tuple[str, ...] = (
    "新的", "新嘅", "新个", "新個", "新嗰个", "新嗰個", "新嗰支", "新支", "我的是", "我嘅係", "我嘅系",
    "正确的是", "正確的是", "啱嘅係", "应该是", "應該是",
)
POINTER_BACK_EN: tuple[str, ...] = (
    "(?:the |my )?new one(?:'s| is)?", "(?:the )?correct one(?:'s| is)?", "(?:the )?right one(?:'s| is)?",
    "mine(?:'s| is)", "my one is", "new:", "(?:it|it's|its|it is) now",
)
#: Phone words the entity recogniser also reads before a number ("门号", "致电", "SIM").
PHONE_CUE_ZH: tuple[str, ...] = (
    "门号", "門號", "致电", "致電", "SIM", "打返", "打番",
    # call this one ("打这个：…"; Cantonese 呢 is 这: "打呢個：…")
    "打这个", "打這個", "打这支", "打這支", "打呢个", "打呢個", "打呢支",
)
#: Phone words that make a number the speaker's ("打这个", "的号是", "call me").
PHONE_MINE_ZH: tuple[str, ...] = (
    "打这个", "打這個", "的号是", "的號是",
    # Cantonese 呢 is 这/這 ("打呢個", "打呢支")
    "打呢个", "打呢個", "打呢支", "打呢个号码", "打呢個號碼",
)
PHONE_MINE_EN: tuple[str, ...] = ("call me",)

# --- a membership level ----------------------------------------------------------------------
# Composed by :mod:`jiyi.text.levels` (the level recogniser). English entries are regular-
# expression fragments read case-insensitively; Chinese entries are literal words.

#: Words that name a level by themselves: colours, metals, gems and the common programme words
#: ("Gold", "钻石", "Elite", "Premier").
LEVEL_NAMES_EN: tuple[str, ...] = (
    "gold", "silver", "bronze", "copper", "platinum", "titanium", "diamond", "emerald", "ruby",
    "sapphire", "pearl", "jade", "onyx", "obsidian", "crystal", "amber", "topaz", "opal",
    "elite", "premier", "prestige", "executive", "signature", "infinite", "ultimate", "royal",
    "legend", "svip", "vip",
)
#: Level words that name a level only beside another level word or a word for membership
#: ("Platinum Plus", "PLUS会员", "Black card", "Basic tier"; never "Pro Max", "a black shirt").
LEVEL_WEAK_EN: tuple[str, ...] = (
    "plus", "pro", "max", "black", "white", "blue", "red", "green", "purple", "basic",
    "standard", "classic", "starter", "regular", "premium", "select", "preferred", "first",
    # the no-fee level ("the free tier", "free plan")
    "free",
)
LEVEL_NAMES_ZH: tuple[str, ...] = (
    "金卡", "银卡", "銀卡", "铜卡", "銅卡", "白金卡", "黑金卡", "黑卡", "普卡", "钻石卡", "鑽石卡",
    "白金", "铂金", "鉑金", "黑金", "黄金", "黃金", "钻石", "鑽石", "黑钻", "黑鑽", "蓝钻", "藍鑽",
    "金牌", "银牌", "銀牌", "铜牌", "銅牌", "翡翠", "星钻", "星鑽", "皇冠", "至尊", "尊享", "尊荣", "尊榮",
    "红钻", "紅鑽", "紫钻", "紫鑽", "绿钻", "綠鑽", "黄钻", "黃鑽", "粉钻", "粉鑽", "白钻", "白鑽",
    "无限卡", "無限卡", "钛金卡", "鈦金卡", "尊贵卡", "尊貴卡",
)
#: Characters that name a card level before 卡 ("金卡", "普卡", "黑卡"; not "信用卡", not a green
#: card "绿卡" or a red card "红卡").
LEVEL_CARD_ZH: tuple[str, ...] = (
    "金", "银", "銀", "铜", "銅", "白金", "铂金", "鉑金", "黑金", "黄金", "黃金", "钻石", "鑽石", "钻",
    "鑽", "黑", "普", "翡翠", "尊享", "至尊", "星钻", "星鑽", "无限", "無限", "钛金", "鈦金", "尊贵", "尊貴",
)
#: Words for a level, after its name ("Gold tier", "Executive Club", "星耀级", "PLUS会员").
LEVEL_NOUNS_EN: tuple[str, ...] = (
    "tier", "status", "level", "member", "membership", "card ?holder", "card", "club", "rank",
    "rewards", "vip",
    # a paid plan's level ("the basic Bronze plan", "Premium plan"): only after a level word
    "plan",
)
LEVEL_NOUNS_ZH: tuple[str, ...] = ("会员", "會員", "等级", "等級", "级", "級", "段位", "VIP", "会籍", "會籍")
#: A level reached or lost ("upgraded to", "got bumped down to", "升咗做", "降到"): the level
#: after them is the current one.
LEVEL_UP_EN: tuple[str, ...] = (
    r"(?:up|down)grad(?:ed|e) (?:me |us |my account |my membership )?(?:up |down )?to",
    r"(?:bumped|moved|promoted|demoted|dropped|knocked|kicked|put|went|gone|climbed|fell|"
    r"slipped|leveled|levelled|changed|switched|renewed|upgraded|downgraded) (?:me |us )?"
    r"(?:(?:back )?(?:up|down) )?(?:to|into)",
    "now on", "made it to", "reached", "hit",
    # placed on a level ("they put me in Silver", "placed us on Gold")
    r"(?:put|placed|kept) (?:me |us )?(?:back )?(?:in|on)",
)
LEVEL_UP_ZH: tuple[str, ...] = (
    "升级到", "升級到", "升级成", "升級成", "升级为", "升級為", "升到", "升成", "升为", "升為", "升咗做",
    "升咗去", "升咗", "升做", "降级到", "降級到", "降级成", "降級成", "降级为", "降級為", "降到", "降成",
    "降为", "降為", "降咗做", "降咗去", "降咗", "降做", "掉到", "跌到", "跌咗去", "变成", "變成", "变咗",
    "變咗", "调到", "調到", "调成", "調成", "转咗", "轉咗", "转成", "轉成", "转为", "轉為", "晋升为", "晉升為",
    "晋升到", "晉升到", "涨到", "漲到", "掉咗", "跌咗", "跌返落", "跌返", "降返", "跌回", "降回", "掉回",
    "转做", "轉做", "转咗做", "轉咗做", "调整为", "調整為", "调整成", "調整成",
)
#: Cards and words that look like a level and are none ("信用卡", "a credit card", "Gold
#: Coast", "the top tier service").
NOT_LEVEL_ZH: tuple[str, ...] = (
    "信用卡", "银行卡", "銀行卡", "储蓄卡", "儲蓄卡", "借记卡", "借記卡", "礼品卡", "禮品卡", "购物卡",
    "購物卡", "电话卡", "電話卡", "公交卡", "交通卡", "饭卡", "飯卡", "门卡", "門卡", "房卡", "体验卡",
    "體驗卡", "年级", "年級", "班级", "班級", "超级", "超級", "顶级", "頂級", "上级", "上級", "下级", "下級",
    "升级", "升級", "降级", "降級", "等级", "等級", "评级", "評級", "层级", "層級", "高级", "高級",
    "卡号", "卡號",
)
NOT_LEVEL_EN: tuple[str, ...] = (
    "credit", "debit", "gift", "sim", "bank", "id", "loyalty", "rewards", "business", "report",
    "top", "high", "higher", "highest", "low", "lower", "lowest", "next", "same", "new", "old",
    "current", "previous", "order", "shipping", "delivery", "payment", "account", "refund",
    "return", "tracking", "application", "what", "which", "member", "membership", "coast",
    "my", "your", "our", "the", "a", "an", "this", "that", "any", "every", "each", "no",
)

# --- where a list item's words begin and end (English) ---------------------------------------
#: Words before the object of a verb of liking or aversion that are no part of it: the verb's
#: preposition or particle, an article ("into Korean fried chicken", "addicted to bubble tea",
#: "can't get enough of mango sticky rice", "a dark chocolate").
ITEM_LEAD_EN: tuple[str, ...] = (
    "to", "on", "of", "for", "into", "about", "the", "a", "an", "some", "get", "enough",
    "get enough", "have", "has", "had", "got",
    "having", "eating", "drinking", "ordering",
)
#: Verbs of eating, drinking or ordering a thing, whose object is the item (not "drinks",
#: "eats": nouns too, "energy drinks", "street eats").
EATING_EN: tuple[str, ...] = (
    "eat", "ate", "eating", "drink", "drank", "drinking", "order", "orders",
    "ordered", "ordering", "gets", "have", "has", "had",
)
#: Words that close a noun phrase: a preposition or a time word after the item starts a phrase
#: of its own ("oat milk in my coffee", "spicy noodles every night", "soda last month",
#: "dairy for now").
ITEM_BREAK_EN: tuple[str, ...] = (
    "in", "at", "for", "from", "during", "before", "after", "when", "whenever", "because", "since",
    "every", "each", "most", "once", "twice", "daily", "last", "this", "these", "lately", "nowadays", "now", "today", "tonight",
    "anymore", "again", "too", "as well", "though", "unless", "if", "but", "or so", "till", "until",
)


# --- a list item taken back (read only of an item the user's list already holds) -------------
# Regular-expression fragments. These words are weak evidence on their own ("算了" closes many
# a remark, "doctor" is no refusal): :mod:`jiyi.keyfacts.polarity` reads them only in the clause
# of an item the user already liked, after the list row's own ``negation`` (slots.json).

#: Negators ("不", "冇", "never"), read with a wanting verb right after them ("不想吃", "没再点",
#: "don't want", "never ordering").
NEGATOR_ZH: tuple[str, ...] = ("不", "没", "沒", "别", "別", "唔", "冇", "无", "無", "勿", "莫", "未")
NEGATOR_EN: tuple[str, ...] = ("not", "never", r"\w+n't", "no")
#: Verbs of wanting, eating or liking a thing.
WANTING_ZH: tuple[str, ...] = (
    "吃", "喝", "食", "飲", "饮", "想", "碰", "点", "點", "买", "買", "叫", "订", "訂", "喜欢",
    "喜歡", "爱", "愛", "鍾意", "钟意", "推", "考虑", "考慮", "需要",
)
#: ... "要" not as an order's detail ("不要辣", "不要加葱").
WANTING_NOT_DETAIL_ZH = "要(?![辣加放葱蔥蒜糖冰太甜咸鹹油酱醬])"
WANTING_EN: tuple[str, ...] = (
    r"eat\w*", "ate", r"drink\w*", r"lik(?:e|es|ing)", r"lov(?:e|es|ing)", r"want\w*",
    r"order\w*", "fancy", "touch", r"buy\w*", r"need\w*", "into", r"crav\w*", r"enjoy\w*",
    "keen", "feel(?:ing)? like", "interested",
)
#: Aversion, stopping, enough of it, a reason to give it up ("算了", "吃太多", "医嘱", "sick of",
#: "cut out", "doc's orders").
AVERSION_ZH: tuple[str, ...] = (
    "戒", "腻", "膩", "厌", "厭", "算了", "算啦", "免了", "免啦", "不想", "吃怕了", "食怕了", "受不了",
    "顶唔顺", "頂唔順", "过敏", "過敏", "敏感", "怕胖", "会胖", "會胖", "长胖", "長胖", "发胖", "發胖",
    "减肥", "減肥", "控制体重", "控制體重", "太多了", "吃太多", "食太多", "吃多了", "食多咗", "够了", "夠了",
    "拉黑", "划掉", "劃掉", "删掉", "刪掉", "删了", "刪了", "刪咗", "不用了", "唔使", "不宜", "忌",
    "胃不好", "拉肚子", "肚子疼", "肚子痛", "吃坏", "吃壞", "上火", "难吃", "難吃", "不好吃", "唔好食",
    "没胃口", "沒胃口", "倒胃口", "放弃", "放棄", "告别", "告別", "拜拜", "再见", "再見", "停了", "停咗",
    "不行", "唔得", "医嘱", "醫囑", "(?<![A-Za-z])pass(?![A-Za-z])",
)
AVERSION_EN: tuple[str, ...] = (
    "gave up", "giving up", "give up", "quit", r"quitt\w*", "stop", "stopped", "done with",
    "sick of", "tired of", "over it", "cut out", "cutting out", "cut back", "cut down",
    r"allerg\w*", "intolerant", "anymore", "any more", "no more", "pass", "skip", "had enough",
    "enough of", "too much", "doc's orders", "doctor's orders", "on a diet", "dieting", "meh",
    "nah", "nope", "gross", "yuck", r"ditch\w*", "drop(?:ped|ping)?", "remove", "scratch",
    "forget",
    "not for me", "not my thing", r"no thanks?(?: you)?", "says no", "said no", "lost interest",
    "outgrown", "grown out of", r"burn[dt] out", r"avoid\w*", "banned", "bye", "goodbye",
)
#: Words with a negator that take nothing back: praise ("不要太好吃", "没有比X更好吃", "never say
#: no to X", "can't get enough"), and connectives ("不过", "不然"): taken out of the clause before
#: any negation is read.
UNNEGATED_ZH: tuple[str, ...] = (
    "不错", "不錯", "不赖", "不賴", "不要太", "不厌", "不厭", "吃不腻", "吃不膩", "食唔厭", "不腻", "不膩",
    "(?:没有|沒有|没|沒|冇)(?:比|得比)", "没得说", "沒得說", "没话说", "沒話說", "不得了", "到不行",
    "停不下来", "停不下來", "离不开", "離不開", "少不了", "不能没有", "不能沒有", "不能少", "忘不了",
    "没想到", "沒想到", "不得不说", "不得不說", "不愧", "不会胖", "不會胖", "不怕", "不过敏", "不過敏",
    "唔过敏", "唔過敏", "冇得顶", "冇得頂", "吃不够", "吃不夠", "不够吃", "不夠吃", "食唔夠", "没吃够",
    "沒吃夠", "没问题", "沒問題", "不用说", "不用說", "不然", "不过", "不過", "别忘", "別忘", "不要忘",
    "唔好忘", "不嫌", "不停", "不忌", "戒不掉", "戒不了", "戒唔甩", "戒唔到", "舍不得戒", "捨不得戒", "舍不得",
    "捨不得",
)
#: Still liked, whatever else is said ("还是爱", "照吃", "nah, I still love it").
STILL_LIKED_ZH: tuple[str, ...] = (
    "还是爱", "還是愛", "还是喜欢", "還是喜歡", "照样", "照樣", "照吃", "照食", "依然", "仍然", "仍舊", "依旧",
    "依舊",
)
STILL_LIKED_EN: tuple[str, ...] = (
    r"still (?:love|like|enjoy|into|want|eat|crave)\w*", r"keep (?:eating|ordering|buying)",
)
UNNEGATED_EN: tuple[str, ...] = (
    "can't get enough", "cannot get enough", "never say no", "can't say no", "won't say no",
    "never gets? old", r"never (?:get|gets|got) (?:tired|sick|bored)", "never tire",
    "can't stop", "cannot stop", "can't resist", "cannot resist", "can't go wrong",
    r"never disappoints?", "never fails", r"(?:can't|cannot|couldn't) live without", "can't beat",
    "nothing beats", "no better", "not bad", "no complaints", "don't forget", "never forget",
    "no doubt", "not enough", "never enough", "no such thing as too much", "can't wait",
    "cannot wait", "not allergic", r"not (?:sick|tired) of", r"never (?:sick|tired) of",
    "don't mind", "wouldn't mind", "no problem", "no regrets", "not gonna lie", "not over it",
    "no way i'd give up", "never stop", "won't stop",
    # a negated giving up is no giving up ("can't skip it", "I could never quit coffee")
    r"(?:can't|cannot|couldn't|won't|wouldn't|never|could never) (?:skip|pass on|give up|quit|ditch)",
)


# --- the name on a thing -------------------------------------------------------------------
#
# A name is given for a role of a thing as often as for the speaker: the recipient of a parcel,
# the guest of a hotel room, the person a table or a ticket is booked under, the holder of an
# account. Each role has its own current name (the name slot qualified by the role:
# ``name:recipient``); a question about the role wants the role's newest name, and the user's
# own name only while no name was ever given for it.

#: The roles of a thing that a name is given for.
NAME_ROLES: tuple[str, ...] = ("recipient", "guest", "booking", "account")
#: Nouns that name the role itself (the person is the role's whatever they are to the user:
#: "收件人改成我先生X", "the recipient is Y").
ROLE_PERSON_ZH: dict[str, tuple[str, ...]] = {
    "recipient": ("收件人", "收货人", "收貨人", "签收人", "簽收人", "收件者", "收件姓名", "收货姓名",
                  "收貨姓名", "收件名", "寄给", "寄給", "送给", "送給", "寄俾", "寄畀", "送俾", "送畀"),
    "guest": ("入住人", "入住者", "住客", "房客", "入住姓名", "入住名"),
    "booking": ("订位人", "訂位人", "订房人", "訂房人", "预订人", "預訂人", "预定人", "預定人", "预约人",
                "預約人", "订票人", "訂票人", "订位姓名", "訂位姓名", "订位名", "訂位名", "订座人", "訂座人",
                # the person a ticket is for
                "乘机人", "乘機人", "登机人", "登機人", "乘车人", "乘車人"),
    "account": ("帐号持有人", "帳號持有人", "账号持有人", "账户持有人", "帳戶持有人", "户名", "戶名",
                "开户人", "開戶人", "持卡人", "账户名", "帳戶名", "帐户名",
                # who a household or a phone line is registered to
                "户主", "戶主", "机主", "機主"),
}
ROLE_PERSON_EN: dict[str, tuple[str, ...]] = {
    "recipient": ("recipients?", "addressee", "addressed to", "consignee",
                  r"(?:ship|send|sent|deliver|post|mail)(?:ped|ed|ing|s)? (?:it |them |the \w+ )?to",
                  r"(?:received|collected|picked up|signed for) by",
                  r"name on the (?:parcel|package|label|delivery|shipment)"),
    "guest": (r"guest(?:'s)? name", "guest", r"check-?in name"),
    "booking": (r"booking name", r"reservation name", "booker"),
    "account": (r"account ?holder", r"card ?holder"),
}
#: Words of the thing a role belongs to: a name given beside them for someone else than the
#: user ("訂位改我同事的名字，X", "the account is under my mom's name, Y") is the role's; said
#: of the user ("correct the name on the booking, it's X as per my ID") it is the user's own.
ROLE_THING_ZH: dict[str, tuple[str, ...]] = {
    "recipient": ("包裹", "快递", "快遞", "收件", "收货", "收貨", "寄件", "签收", "簽收"),
    "guest": ("入住", "房间", "房間", "酒店", "民宿"),
    "booking": ("订位", "訂位", "订房", "訂房", "预订", "預訂", "预约", "預約", "订座", "訂座", "订票", "訂票",
                "订枱", "訂枱"),
    "account": ("帐号", "帳號", "账号", "账户", "帳戶", "帐户", "户口", "戶口"),
}
ROLE_THING_EN: dict[str, tuple[str, ...]] = {
    "recipient": ("parcels?", "packages?", "deliver(?:y|ies)", "shipments?", "labels?", "courier",
                  "driver"),
    "guest": ("rooms?", r"check(?:s|ed|ing)?[- ]?in", "stay", "hotel"),
    "booking": ("bookings?", "reservations?", "tables?", "tickets?"),
    "account": ("accounts?", "membership"),
}
#: The people a name on a thing may belong to, said as what they are to the user ("我先生",
#: "我同事", "my flatmate").
RELATION_ZH: tuple[str, ...] = (
    "先生", "太太", "老婆", "老公", "妻子", "丈夫", "爱人", "愛人", "同事", "朋友", "女儿", "女兒", "儿子",
    "兒子", "妈妈", "媽媽", "爸爸", "老妈", "老媽", "老爸", "妈", "媽", "爸", "阿妈", "阿媽", "老豆", "老母",
    "姐姐", "妹妹", "哥哥", "弟弟", "家姐", "细佬", "細佬", "室友", "同学", "同學", "老板", "老闆", "助理",
    "秘书", "秘書", "家人", "亲戚", "親戚", "男朋友", "女朋友", "男友", "女友", "未婚夫", "未婚妻", "邻居",
    "鄰居", "婆婆", "公公", "岳母", "岳父", "外婆", "外公", "奶奶", "爷爷", "爺爺", "阿姨", "舅舅", "叔叔",
    "妈咪", "媽咪", "爹地", "爹哋", "家婆", "老爷", "老爺", "老细", "老細", "太座", "弟", "妹", "哥", "姐",
    "嫂", "个仔", "個仔", "个女", "個女",
)
#: After a verb of reaching ("联系我", "找我", "打给我"): not followed by a relation the 我
#: owns ("联系我同事小孟", "打给我老公"), where the one reached is someone else.
NOT_MY_RELATION_ZH = "(?!(?:的|嘅)?(?:" + "|".join(sorted(RELATION_ZH, key=len, reverse=True)) + "))"
RELATION_EN: tuple[str, ...] = (
    "flatmate", "roommate", "housemate", "husband", "wife", "partner", "hubby", "mom", "mum",
    "mother", "dad", "father", "son", "daughter", "brother", "sister", "colleague", "coworker",
    "co-worker", "boss", "friend", "boyfriend", "girlfriend", "fianc[ée]e?", "assistant",
    "neighbou?r", "cousin", "aunt", "uncle", "grandma", "grandpa", "grandmother", "grandfather",
    "mother-in-law", "father-in-law", "parents?", "manager", "secretary", "missus", "missis",
    "spouse", "other half",
)
#: The user's own name changed ("改名了", "got married, my last name's changed", "name on my
#: ID"): a name said after them is the user's new one, "now" and all.
NAME_CHANGED_ZH: tuple[str, ...] = (
    "改名", "更名", "改了名", "改咗名", "换了名", "換了名", "换咗名", "換咗名", "名字改", "名字换", "名字換", "名字变", "名字變", "改姓",
    "新名字", "新名", "身份证上", "身份證上", "证件上", "證件上", "护照上", "護照上",
    # a married name taken, a name written wrong, the surname or the name one goes by now
    "冠夫姓", "随夫姓", "隨夫姓", "从夫姓", "從夫姓", "跟老公姓", "跟先生姓", "改回", "姓氏",
    "名字写错", "名字寫錯", "名字打错", "名字打錯", "名字拼错", "名字拼錯", "名写错", "名寫錯",
    "名打错", "名打錯", "现在姓", "現在姓", "而家姓", "以后叫我", "以後叫我", "之后叫我", "之後叫我",
)
NAME_CHANGED_EN: tuple[str, ...] = (
    r"(?:last|family|first|given|full|sur|maiden|married|legal)? ?name(?:'s|’s| is| has| was)? "
    r"(?:been )?(?:changed?|different|new|wrong|incorrect|misspelt|misspelled|update)",
    r"(?:change|changed|changing|update|updated|updating|correct|fix|amend|switch)\w* (?:the |my )?"
    r"(?:account |booking |card |order )?(?:last |family |first |full |sur)?names?",
    r"(?:put|write|spell|list|register|have|keep|save) (?:my|the) (?:full )?names?",
    r"new (?:last |family |sur)?names?", "married", "married name", "maiden name",
    # a name wished for from now on ("I've stopped going by Maggie… I'd like to be Greta now")
    r"(?:stopped|stop|no longer) (?:going|go) by", r"i(?:'d|’d| would) (?:like|prefer|love|want) to be",
    r"(?:on|in) my (?:new |current |updated |renewed )?(?:id|passport|ic|licen[cs]e|documents?|"
    r"certificate)",
    r"as per my (?:id|passport|ic|license|licence)", r"name ko", "legal name",
    # a married name taken, the name spelt, a surname, the name one is known by now
    r"took (?:my )?(?:husband|wife|partner|spouse)(?:'s|’s) (?:last |family |sur)?name",
    r"(?:last|family|sur) ?name(?:'s|’s| is)? now", r"my surname",
    r"(?:name|it)(?:'s|’s| is)? (?:spelt|spelled)", r"spelling of my name",
    r"(?:i'?m|i’m|i am) (?:known|listed|registered|booked) (?:as|under)",
    r"prefer(?:s)? to be called",
    r"(?:it'?s|it’s|i'?m|i’m|i am) (?:now )?(?:mrs|ms|miss|mr|dr)\.? [a-z]",
)
