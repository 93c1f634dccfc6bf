"""Postal addresses in a text: the common written formats of the world, Chinese and English.

Read by :mod:`jiyi.text.entities` (the one entity recogniser) as its ``address`` kind. The rules
are general statements of how addresses are written, not lists of addresses:

* Chinese (mainland, Hong Kong, Macau, Taiwan, Malaysian Chinese): a street (路 / 街 / 道 / 巷 /
  弄, a section 段, lanes 巷 弄) and its number 号 / 號, then buildings, blocks, floors and rooms
  (栋 / 單元 / 樓 / 室, "5樓之2"); or an estate with no street (小区 / 花園 / 邨 / 苑 / 大廈 …)
  followed by its blocks and rooms ("望京花园小区5栋2单元301", "禾輋邨豐順樓1203室"). The words
  before it that are never part of it ("以後寄去", "地址更新為", "搬咗去", "收件地址：") are cut.
* English (the US, Canada, the UK and Ireland, Australia and New Zealand, India, Nigeria and
  Ghana, the Philippines, Singapore and Malaysia): a house number and a street whose street word
  comes last ("123 N Main St", "12 marine rd") or first ("45 Rue Saint-Denis", "No. 8, Jalan
  SS2/24"), perhaps after a unit ("Flat 3, …", "Unit 5/23 …", "Blk 5 Lot 12 …"), then a unit
  ("Apt 4B", "#05-67"), towns, a county or state and a postcode ("Dún Laoghaire, Co. Dublin A96
  X2F3", "Montréal QC H2X 3K8", "50450 Kuala Lumpur"); or a labelled plot, flat or house and the
  places after it, one of them a street or ending in a postcode ("Plot 15, Admiralty Way, Lekki
  Phase 1, Lagos", "Flat 202, Sai Residency, MG Road, Bengaluru 560001").
"""

from __future__ import annotations

import re

from ..units import Entity
from .fastre import gate_all
from .lexicon import CITIES_ZH, PROVINCES_ZH
from .segment import to_simplified

# --- Chinese ---------------------------------------------------------------------------------

#: A building or campus named after the house number ("…189号津汇广场2座2703", "…1號光復校區宿舍").
_ADDR_BUILDING = (r"(?:[\u4e00-\u9fffA-Za-z]{0,10}?(?:大厦|大廈|广场|廣場|中心|花园|花園|小区|小區|公寓|大楼|大樓|"
                  r"产业园|產業園|园区|園區|校区|校區|宿舍|国际|國際|一期|二期|三期|新村|家园|家園|苑|舍)|[东西南北中東][区區]"
                  # any short name followed by a numbered block, floor or room is a building's
                  # ("…655號胡社生行12樓", "…90号东部软件园2号楼"), a name with no word of talk
                  # in it ("…90号就行了放3楼" names no building)
                  r"|(?:(?![我你他她的了就是係放送寄到吧呢啊吗嗎要在喺和跟给給把被])[\u4e00-\u9fff]){1,8}?(?=\s?[0-9A-Z一二三四五六七八九十]{1,4}\s?(?:栋|棟|号楼|號樓|幢|座|单元|單元|楼|樓|层|層|室))"
                  r"){0,3}")
_ADDR_UNIT = (r"(?:\s?[0-9A-Z一二三四五六七八九十]{1,4}\s?(?:栋|棟|号楼|號樓|幢|单元|單元|楼|樓|室|层|層|座|舍|期|区|區))*"
              r"(?:之(?:\d{1,3}|[一二三四五六七八九十]{1,3}))?(?:\s?[0-9]{2,5}\s?[室房]?|\s?[A-Z]室)?")
#: A numbered street ("花园7路", "SS2/24路", "PJ5/12路": Malaysian and mainland estates number
#: their roads): the number between the street's name and its road word.
_STREET_NUMBER = r"(?:[A-Za-z]{0,3}\d{1,3}(?:/\d{1,3})?)?"
_ADDR_ZH = re.compile(r"[\u4e00-\u9fff]{2,18}?" + _STREET_NUMBER + r"(?:路|街|道|大道|巷|弄|胡同)"
                      # a road's part ("皇后大道中", "德輔道西", "忠孝東路四段")
                      r"(?:[东西南北中東](?=\s?[0-9一二三四五六七八九十百]+\s?[号號]))?"
                      r"(?:[东西南北東][一二三四五六七八九十\d]{0,3}段|[一二三四五六七八九十\d]{1,3}段)?(?:\d{1,4}[巷弄]){0,2}\s?[0-9一二三四五六七八九十百]+\s?[号號]院?"
                      + _ADDR_UNIT + _ADDR_BUILDING + _ADDR_UNIT)
#: An estate with no street named ("北京市朝阳区望京花园小区5栋2单元301", "新界沙田禾輋邨豐順樓
#: 1203室", "九龍灣德福花園E座12樓3室"): the estate word, perhaps a named block ("豐順樓"), then
#: numbered blocks, floors and a room (at least two of them: see :func:`_estate_ok`).
# (Hong Kong names estates and blocks 城, 閣, 軒 too: "沙田第一城 28 座 15 樓 D 室")
_ESTATE_WORD = (r"(?:小区|小區|花园|花園|家园|家園|新村|公寓|大厦|大廈|邨|苑|山庄|山莊|华庭|華庭|大楼|大樓|园|園|"
                r"城|阁|閣|轩|軒)")
_ESTATE_PART = r"\s?[0-9A-Z一二三四五六七八九十]{1,4}\s?(?:栋|棟|号楼|號樓|幢|座|单元|單元|楼|樓|层|層|室|房|期|区|區)"
_ADDR_ESTATE = re.compile(
    r"[\u4e00-\u9fff]{1,16}?" + _ESTATE_WORD + r"(?:[\u4e00-\u9fff]{0,6}?" + _ESTATE_WORD + r")?"
    r"(?:[\u4e00-\u9fff]{1,3}(?:楼|樓|座|阁|閣))?"
    r"(?:" + _ESTATE_PART + r")*(?:之[\d一二三四五六七八九十]{1,3})?(?:\s?[0-9]{3,5}(?![0-9]))?")
#: An estate named by no estate word, then a numbered block and a room number ("书香门第上河坊5栋
#: 2203", "万科金域华府8座2603", "山水人家3幢402"): the block and the room together say an
#: address, the words before them (up to a district, 区 / 街道 / 镇, or a verb of sending or
#: living) name the estate. An entrance may stand for the unit ("华苑居华里16号楼2门502": Tianjin
#: numbers a block's stairways 门).
_ADDR_BLOCK_ROOM = re.compile(
    r"(?:(?![我你他她的了就是係放送寄到吧呢啊吗嗎要在喺和跟给給把被住搬])[\u4e00-\u9fff]){2,20}?"
    r"[ \u3000]?[0-9A-Z]{1,3}\s?(?:栋|棟|幢|座|号楼|號樓)(?:\s?[0-9一二三四五六七八九十]{1,2}\s?(?:单元|單元|门|門))?"
    r"\s?[0-9]{3,4}(?![0-9])(?:\s?(?:室|房))?")
_BLOCK_ROOM_GATE = re.compile(r"[0-9A-Z]\s?(?:栋|棟|幢|座|号楼|號樓)")
_ESTATE_PARTS = re.compile(_ESTATE_PART + r"|\d{3,5}$")
_ESTATE_GATE = re.compile(_ESTATE_WORD + r".{0,8}?[0-9A-Z一二三四五六七八九十]\s?(?:栋|棟|号楼|號樓|幢|座|单元|單元|楼|樓|层|層|室|房)")
_ADDR_LEAD = re.compile(r"^.*?(?:地址是|地址为|地址為|地址[:：]?|住在|住址是|寄到|送到|搬到了?|搬去了?|位于|位於|改成|改为|改為|在|是)(?=.{4})")
#: A verb or label of an address inside a matched run (a run-on turn: "…满额折扣搬到X",
#: "…谢谢寄到X"): the address starts after the last one.
_ADDR_AFTER_VERB = re.compile(r".*(?:地址是|地址为|地址為|地址[:：]|住址是|住在|寄到|寄去|送到|送去|发到|發到|"
                              r"搬到了|搬到|搬去了|搬去|搬家到|搬咗去|搬咗到|改成|改为|改為|更新为|更新為|"
                              r"更新成|寄返|送返)")
#: "在" / "喺" (at) before an address inside a matched run: the address starts after the last one.
_AT_PLACE = re.compile(r".*(?:在|喺)")
#: Words that may stand before an address but are never part of it ("我住", "以后都送",
#: "收货地址改成", "别再寄", "以後寄去", "搬咗去", "收货地址填"): stripped from the front of a matched address,
#: repeatedly.
_ADDR_LEAD_WORDS = re.compile(
    r"^(?:不要|别|別|唔好|勿|再|我们|我們|我哋|我|咱们|咱們|咱|家里|家裡|家|现在|現在|而家|目前|以后|以後|之后|之後|今后|今後|往后|往後|"
    r"一律|统一|統一|全部|都|就|也|还是|還是|已经|已經|刚刚|剛剛|啱啱|刚|剛|新的|新|收货|收貨|收件|送货|送貨|"
    r"住在|住喺|住|搬到|搬去|搬咗去|搬咗到|搬咗|搬家到|搬来|搬來|搬进|搬進|寄到|寄去|寄返|寄给|寄給|寄|送到|送去|送返|送|发到|發到|发往|發往|"
    r"改到|改成|改为|改為|换成|換成|换到|換到|更新为|更新為|更新成|地址|住址|是|係|为|為|在|喺|了|咗|请|請|帮我|幫我|"
    r"填成|填写|填寫|填|写成|寫成|写|寫|[:：，,\s])+")
#: A Chinese address needs one of these words; without one its costly pattern does not run.
_ADDR_ZH_WORD = re.compile(r"[路街道巷弄]|胡同")
_REGION = re.compile("|".join(sorted((*CITIES_ZH, *PROVINCES_ZH), key=len, reverse=True)))

# --- English ---------------------------------------------------------------------------------

#: Latin letters with their accented forms ("Dún Laoghaire", "Montréal"), capitals alone.
_LETTER = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
_UPPER = "A-Z\u00c0-\u00d6\u00d8-\u00de"
#: English street addresses. A house number ("42", "221B", "3/12", "12-14"), perhaps after a
#: unit ("Flat 2, 17 …", "Unit 5/23 …") or a block and lot ("Blk 5 Lot 12 …", "No. 7 …"), then
#: the street: up to four words (lower case too: "14 birch road") before a street word that is
#: no common English word ("Street", "Rd", "Avenue", "Hwy" …), or capitalised words before one
#: that is ("Harbour Way", "Elm Close", "Pinecrest Trail"), or a numbered road ("Route 9",
#: "Highway 101"), or "Broadway", or a street word that comes first ("Rue Saint-Denis", "Jalan
#: SS2/24", "Calle Mayor"); a word of the street is never a function word ("3 days on the road"
#: is no address). Then a unit ("Apt 3B", "#5"), the towns, the state or county and the
#: postcode when they follow ("Portland, OR 97205", "leeds LS6 2AB", "Brgy. San Isidro, Quezon
#: City", "50450 Kuala Lumpur").
_ADDR_STOP = (r"(?!(?:the|a|an|to|on|in|at|of|for|and|or|from|with|by|my|your|our|their|is|are|"
              r"was|were|be|it|its|this|that|me|i|we|you|he|she|they|down|up|off|out|over|into|"
              r"per|more|than|about|around|across|along|near|via|than|days?|weeks?|months?|"
              r"years?|hours?|minutes?|times?|items?|things?|orders?|boxes|pieces?|pcs|(?-i:miles?)|"
              r"blocks?|km|doors?|pm|am)\b)")
_ADDR_WORD = _ADDR_STOP + r"(?:[" + _LETTER + r"][" + _LETTER + r"'’\-]*\.?|\d{1,3}(?:st|nd|rd|th))"
_ADDR_CAP_WORD = _ADDR_STOP + (r"(?-i:[" + _UPPER + r"][" + _LETTER + r"'’\-]*\.?|"
                               r"\d{1,3}(?:st|nd|rd|th))")
_ADDR_DIR = r"(?:(?-i:N|S|E|W|NE|NW|SE|SW)\.?\s+)?"
_STREET_WORD = (r"(?:Street|St\.?|Road|Rd\.?|Avenue|Ave\.?|Boulevard|Blvd\.?|Lane|Ln\.?|Terrace|Tce\.?|"
                r"Crescent|Cres\.?|Parkway|Pkwy\.?|Highway|Hwy\.?|Cir\.?|Trl\.?|Pl\.?|Ct\.?|Sq\.?|"
                r"Dr\.?|Strasse|Straße)(?![A-Za-z])")
_STREET_CAP = (r"(?-i:Way|Place|Court|Close|Row|Walk|Hill|Green|Park|View|Rise|Gate|Grove|Square|"
               r"Drive|Mews|Gardens|Parade|Point|Loop|Circle|Crossing|Heights|Commons|Ridge|Bend|"
               r"Trail|Plaza|Quay|Wharf|Yard|Chase|Vale|Esplanade|Promenade|Alley|Pike|Run|Path|"
               r"Broadway|Causeway|Hollow|Landing|Meadows?|Glen|Dale|Cross|Marg|Nagar)(?![A-Za-z])")
#: Street words written before the street's name (French, Spanish, Portuguese, Italian, Malay,
#: Thai: "Rue Saint-Denis", "Calle Mayor", "Jalan Ampang", "Lorong 4", "Soi 11").
_STREET_FIRST = (r"(?:Rue|Rua|Calle|Carrer|Avenida|Avda\.?|Av\.|Avenue|Boulevard|Boul\.|Chemin|Ch\.|"
                 r"Via|Viale|Piazza|Jalan|Jln\.?|Lorong|Lrg\.?|Persiaran|Lebuhraya|Lebuh|Soi|"
                 r"Thanon)(?![A-Za-z])")
#: A word of a street named after its street word: capitalised, a code ("SS2/24", "4"), or a
#: joining word ("de la", "du").
_NAME_WORD = (r"(?:(?-i:de|du|des|la|le|les|del|della|di|da|do|dos|das)\s+|(?-i:d'|l'))?"
              r"(?-i:[A-Z]{0,3}\d{1,3}(?:/\d{1,3}[A-Z]?)?|[" + _UPPER + r"][" + _LETTER + r"'’\-]*\.?)(?![0-9/])")
_ADDR_UNIT_EN = r"(?:Flat|Apt\.?|Apartment|Unit|Suite|Ste\.?|Room|Rm\.?|Level|Floor|Fl\.?|Bldg\.?|Building)"
_POSTCODE = (r"(?:\d{6}|\d{5}(?:-\d{4})?|[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}|[A-Z]\d[A-Z]\s?\d[A-Z]\d|"
             r"[A-Z]\d{2}\s?[A-Z\d]{4}|\d{4})(?![A-Za-z0-9])")
_STATE = r"(?-i:[A-Z]{2,3})(?![A-Za-z0-9])"
#: A capitalised word that starts the next sentence, not a town ("…, London. Thanks", ", Please").
_TOWN_STOP = (r"(?!(?-i:Please|Pls|Plz|Thanks|Thank|Thx|Cheers|Ta|I|I'm|I'll|I've|I'd|We|We're|"
              r"We'll|We've|It|It's|The|But|And|So|Or|Ok|OK|Okay|Sorry|Just|Also|Not|My|Our|This|"
              r"That|These|Those|Leave|Call|Text|Buzz|Knock|Can|Could|Would|Will|Should|Is|"
              r"Are|Was|Do|Does|Did|What|Where|When|Which|Who|How|Why|From|Until|Till|Since|"
              r"Starting|Effective|Ship|Send|Deliver|Post|Mail|Hi|Hello|Hey|Yes|Yeah|Nope|Best|"
              r"Regards|Kindly|Note|Update|Moved|Use|Don't|Dont|Nobody|Someone|If|Then|Before|"
              r"After|Now|Today|Tomorrow|Tonight|Thx|Btw|BTW|Instead|Going|Whenever|Any|All|"
              r"Everything|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)(?![A-Za-z'’]))")
_TOWN_WORD = _TOWN_STOP + r"(?-i:[" + _UPPER + r"][" + _LETTER + r"'’\-]*\.?)(?![0-9])"
#: A town, suburb, district or county: capitalised words, perhaps numbered ("Lekki Phase 1",
#: "Dublin 2", "Co. Dublin", "Brgy. San Isidro").
_TOWN = (_TOWN_WORD + r"(?:\s" + _TOWN_WORD + r"){0,2}(?:\s\d{1,3}[A-Za-z]?(?![A-Za-z0-9:]))?")
_TOWNS = (r"(?:,\s*" + _TOWN + r"){1,3}(?:,?\s*" + _STATE + r")?(?:,?\s*" + _POSTCODE + r")?"
          r"|,\s*[a-z]+(?:\s[a-z]+){0,2},?\s*(?:" + _STATE + r",?\s*)?" + _POSTCODE
          + r"|,\s*\d{4,6}\s+" + _TOWN  # "50450 Kuala Lumpur"
          + r"|,?\s+(?-i:[" + _UPPER + r"][a-z]+)\s+" + _POSTCODE + r"|,?\s*" + _POSTCODE)
#: A house or building named before the number ("The Old Bakery, 3 …", "Kestrel House, 118 …").
_HOUSE_NAME = (r"(?-i:The(?:\s[A-Z][a-z]+){1,3}|[A-Z][a-z]+(?:\s[A-Z][a-z]+){0,2}\s(?:House|Cottages?|"
               r"Lodge|Farm|Villa|Mill|Barn|Manor|Hall|Apartments|Residency|Towers?|Mansions?|"
               r"Building|Court|Heights|Residences|Centre|Center|Block))")
_ADDR_EN = re.compile(
    r"(?=[0-9A-Za-z])(?<![A-Za-z0-9$£€¥#./])"
    r"(?:" + _HOUSE_NAME + r",\s+)?"  # "The Old Bakery, 3 Church Lane"
    r"(?:" + _ADDR_UNIT_EN + r"\s*#?\s*[A-Za-z]?\d{1,5}[A-Za-z]?(?:\s*/\s*(?=\d)|,?\s+"
    r"(?:(?-i:[A-Z][a-z]+(?:\s[A-Z][a-z]+){0,2}),\s+)?))?"  # "Flat 9, Kestrel House, 118 …"
    r"(?:P\.?\s?O\.?\s?Box\s+\d{1,6}"
    # India: "House No. 56, Sector 15A, …" (no street word: the locality follows)
    r"|(?-i:House|Plot|Door|Flat|H\.)\s?No\.?\s*\d{1,5}[A-Za-z]?"
    r"(?:,\s*(?-i:[A-Z][a-z]+)(?:\s(?-i:[A-Z0-9][A-Za-z0-9-]{0,8})){0,2}(?=,)){0,2}"
    # a block and a lot before the number ("Blk 5 Lot 12 …", "Blk 512 Jurong West Street 52")
    r"|(?:(?:Blk|Block|Lot|Phase)\.?\s*\d{1,5}[A-Za-z]?,?\s+){0,2}(?:(?:Blk|Block|Lot|No)\.?\s*)?"
    r"\d{1,6}[A-Za-z]?(?:\s?[-/]\s?\d{1,5}[A-Za-z]?)?(?:\s+(?:"
    r"(?:Route|Rte\.?|Highway|Hwy\.?|State Route|County Road|Interstate)\s+\d{1,4}"
    r"|" + _ADDR_DIR + r"(?-i:Broadway)"
    r"|" + _ADDR_DIR + r"(?:" + _ADDR_WORD + r"\s+){1,4}" + _STREET_WORD +
    r"|" + _ADDR_DIR + r"(?:" + _ADDR_CAP_WORD + r"\s+){1,4}" + _STREET_CAP +
    r")(?:\s(?-i:West|East|North|South|NE|NW|SE|SW|N|S|E|W)\.?(?![A-Za-z]))?(?:\s\d{1,3}(?![\d:.]))?"
    r"|,?\s+" + _STREET_FIRST + r"\s+" + _NAME_WORD + r"(?:\s+" + _NAME_WORD + r"){0,3}))"
    r"(?:,?\s*(?:" + _ADDR_UNIT_EN + r"\s*#?\s*|#\s*)[A-Za-z]?\d{1,5}(?:-\d{1,5})?[A-Za-z]?"
    r"(?![A-Za-z0-9]))?"
    r"(?:" + _TOWNS + r")?", re.I)
#: A labelled plot, flat, house or number, then the places after it, with no house number
#: before the street ("Plot 15, Admiralty Way, Lekki Phase 1, Lagos", "Flat 202, Sai Residency,
#: MG Road, Bengaluru 560001", "B-204, Sai Krupa Apartments, 14th Cross, …"): kept when one of
#: the places is a street or it ends in a postcode (see :func:`_labelled_ok`).
_PLACE = (_TOWN_STOP + r"(?-i:[A-Z]{1,3}\d{1,3}(?:/\d{1,3})?(?!\s\d[A-Z]{2}(?![A-Za-z0-9]))|\d{1,3}(?:st|nd|rd|th)|"
          r"[" + _UPPER + r"][" + _LETTER + r"'’\-]*\.?)(?![0-9/])")
_ADDR_LABELLED = re.compile(
    r"(?=[0-9A-Za-z])(?<![A-Za-z0-9$£€¥#./])"
    r"(?:\d{1,5}[A-Za-z]?\s+" + _PLACE + r"(?:\s+" + _PLACE + r"){0,3}"  # "3 Rose Cottages, …"
    r"|(?:(?:Flat|Plot|House|Door|Apt\.?|Apartment|Unit|Shop|Suite|Block|Blk|Lot|Villa)(?:\s*No\.?)?"
    r"|No\.?|H\.\s?No\.?)\s*#?\s*(?:[A-Z]-?)?\d{1,5}[A-Za-z]?(?![A-Za-z0-9])"
    r"|(?-i:[A-Z])-\d{2,4}(?![A-Za-z0-9]))"
    r"(?:,\s*" + _PLACE + r"(?:\s+" + _PLACE + r"){0,3}(?:\s\d{1,3}[A-Za-z]?(?![A-Za-z0-9:]))?){1,5}"
    r"(?:,?\s*" + _POSTCODE + r")?", re.I)
_STREET_END = re.compile(r"(?:" + _STREET_WORD + r"|" + _STREET_CAP + r"|(?-i:Main))\.?$", re.I)
_STREET_START = re.compile(_STREET_FIRST, re.I)
_ENDS_POSTCODE = re.compile(r"(?<![A-Za-z])" + _POSTCODE + r"$")


def _labelled_ok(text: str) -> bool:
    """A labelled run is an address when one of its places is a street ("Admiralty Way", "Jalan
    Ampang", "2nd Main") or it ends in a postcode; "Suite 5, Hotel California" is none."""
    places = [p.strip() for p in text.split(",")[1:]]
    return any(_STREET_END.search(p) or _STREET_START.match(p) for p in places) \
        or _ENDS_POSTCODE.search(text) is not None


def _estate_ok(raw: str) -> bool:
    """An estate with no street is an address with two parts after the estate word at least (a
    block and a room, "5栋2单元301", "豐順樓1203室"); "我住的小区" or "望京花园5栋" alone is not
    enough to tell an address from talk about a place."""
    tail = re.split(_ESTATE_WORD, raw)[-1]
    return len(_ESTATE_PARTS.findall(tail)) + (1 if re.match(r"[\u4e00-\u9fff]{1,3}[楼樓座阁閣]", tail)
                                                else 0) >= 2


def _zh_start(raw: str, rx: re.Pattern[str]) -> int:
    """Where a matched Chinese address starts: after the words before it that are never part of
    it, at the region it names, or after the verb or label of a run-on turn."""
    lead = _ADDR_LEAD_WORDS.match(raw)
    skip = lead.end() if lead else 0
    first = _REGION.search(raw)
    if first and first.start() < skip < first.end():
        skip = first.start()  # "新北市…": 新 is the region's, not a lead word
    region = _REGION.search(raw, skip)
    if region and region.start() > skip and rx.fullmatch(raw, region.start()) is not None:
        skip = region.start()  # "公司在上海市…" -> the address starts at the region
    cut = _ADDR_AFTER_VERB.match(raw, skip)
    if cut and rx.fullmatch(raw, cut.end()) is not None:
        skip = cut.end()  # "…有没有满额折扣搬到X": the address starts after the verb
    where = _AT_PLACE.match(raw, skip)
    if where and len(raw) - where.end() >= 6 and rx.fullmatch(raw, where.end()) is not None:
        skip = where.end()  # "公司在科技园2期3楼", "屋企喺…": the address is where it is
    if len(raw) - skip < 4:
        cut = _ADDR_LEAD.match(raw)
        skip = cut.end() if cut else 0
    return skip


#: A convenience store's branch where a parcel is picked up (Taiwan's 超商取貨, Hong Kong's and
#: the mainland's store pick-up): the chain, then the branch's name and 門市 / 店 ("7-11台中文心
#: 門市", "全家板橋文化店", "OK便利店旺角店"). The branch is where the user's parcels go.
_STORE_PICKUP = re.compile(
    r"(?<![A-Za-z0-9])(?:7-?11|7-?ELEVEN|7-?Eleven|小七|统一超商|統一超商|全家便利商店|全家便利店|全家|FamilyMart|"
    r"莱尔富|萊爾富|OK超商|OK便利店|OK mart|OKmart|Hi-Life|美廉社|Circle K|OK记|OK記|OK)\s?"
    r"(?:[\u4e00-\u9fff]{2,10}?|[A-Za-z]{2,10}\s?)(?:门市|門市|分店|店)(?![\u4e00-\u9fff]{0,1}(?:员|員|长|長|家|主))")


def store_pickups(text: str) -> list[tuple[int, int]]:
    """The spans of convenience-store branches in ``text`` (see :data:`_STORE_PICKUP`): a date
    read inside one ("7-11") is the chain's name."""
    return [m.span() for m in _STORE_PICKUP.finditer(text)]


#: A building and a room said after a space ("海淀区中关村大街27号 中关村大厦1108室", "金开大道
#: 1588号 龙湖星悦荟7栋9-3", "科华北路65号 世外桃源广场B座1203"): the same address, typed with a
#: space where a comma or nothing would be.
_ZH_ADDR_TAIL = re.compile(
    r"[ \u3000]+((?:[\u4e00-\u9fff]{1,12}?)?[A-Za-z0-9\-#]*[\u4e00-\u9fffA-Za-z0-9\-#]{0,8}?"
    r"(?:\d+\s?(?:室|楼|樓|层|層|F|号房|號房)|[A-Za-z0-9]+座\d+|\d+(?:栋|棟|幢|号楼|號樓)\d*(?:-\d+)?|\d+-\d+)"
    # a block, floor and room each typed with spaces ("唐德街 9 號 天晉 2 座 30 樓 D 室")
    r"|[\u4e00-\u9fff]{1,12}?(?:\s?[0-9A-Z]{1,4}\s?(?:座|栋|棟|幢|号楼|號樓|楼|樓|层|層|室|单元|單元)){2,4})"
    r"(?=[\s，,。.！!？?；;]|$)")
#: An address ending where a building may follow (a street number, a road).
_ZH_ADDR_OPEN_END = re.compile(r"(?:\d+\s?[号號]|[路街道巷弄]|大道)$")


def _with_tail(text: str, e: Entity) -> Entity:
    """The address with the building and room said after a space (:data:`_ZH_ADDR_TAIL`)."""
    if not _ZH_ADDR_OPEN_END.search(e.text):
        return e
    m = _ZH_ADDR_TAIL.match(text, e.end)
    if m is None:
        return e
    full = text[e.start:m.end()]
    return Entity(kind="address", text=full, value=to_simplified(re.sub(r"\s+", "", full)),
                  start=e.start, end=m.end())


def _zh_addresses(text: str) -> list[Entity]:
    out: list[Entity] = [Entity(kind="address", text=m.group(0),
                                value=to_simplified(re.sub(r"\s+", "", m.group(0))),
                                start=m.start(), end=m.end()) for m in _STORE_PICKUP.finditer(text)]
    found: list[re.Match[str]] = []
    if _ADDR_ZH_WORD.search(text):
        found += _ADDR_ZH.finditer(text)
    if _ESTATE_GATE.search(text):
        found += [m for m in _ADDR_ESTATE.finditer(text) if _estate_ok(m.group(0))]
    if _BLOCK_ROOM_GATE.search(text):
        found += _ADDR_BLOCK_ROOM.finditer(text)
    for m in found:
        raw = m.group(0)
        skip = _zh_start(raw, m.re)
        addr = raw[skip:]
        s = m.start() + skip
        out.append(_with_tail(text, Entity(
            kind="address", text=addr, value=to_simplified(re.sub(r"\s+", "", addr)),
            start=s, end=s + len(addr))))
    return out


#: Every match of :data:`_ADDR_EN` and :data:`_ADDR_LABELLED` holds a digit (a house, flat, plot
#: or box number, a block: "12 Rose Street", "Flat 9, …", "P.O. Box 12", "B-204, …"): a text
#: without one holds no Latin-script address.
_DIGIT = re.compile(r"\d")


def _en_addresses(text: str) -> list[Entity]:
    if not _DIGIT.search(text):
        return []
    out = [m for m in _ADDR_EN.finditer(text)]
    if "," in text:
        out += [m for m in _ADDR_LABELLED.finditer(text) if _labelled_ok(m.group(0))]
    return [Entity(kind="address", text=m.group(0), value=" ".join(m.group(0).split()),
                   start=m.start(), end=m.end()) for m in out]


def find_addresses(text: str, cjk: bool = True, latin: bool = True) -> list[Entity]:
    """Every address candidate in ``text`` (overlapping candidates are left to the caller's
    settling of overlaps, the longest first); ``cjk`` / ``latin``: whether the text has
    characters of those scripts (a pattern runs only where it can match)."""
    return (_zh_addresses(text) if cjk else []) + (_en_addresses(text) if latin else [])


gate_all(globals())  # the patterns above, gated on their first characters (text/fastre.py)
