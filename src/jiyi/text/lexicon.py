"""Word lists the rule extractors use: surnames, cities, product brands. Plain data."""

from __future__ import annotations

SURNAMES_MULTI: tuple[str, ...] = (
    "欧阳", "歐陽", "司马", "司馬", "诸葛", "諸葛", "上官", "东方", "東方", "慕容", "皇甫", "令狐",
)
SURNAMES: frozenset[str] = frozenset(
    "王李张張刘劉陈陳杨楊黄黃赵趙吴吳周徐孙孫马馬朱胡郭何林罗羅高郑鄭梁谢謝宋唐许許韩韓冯馮邓鄧"
    "曹彭曾肖萧蕭田董袁潘于蒋蔣蔡余杜叶葉程苏蘇魏吕呂丁任沈姚卢盧姜崔钟鍾谭譚陆陸汪范金石廖贾賈"
    "夏韦韋付方白邹鄒孟熊秦邱江尹薛闫閻段雷侯龙龍史陶黎贺賀顾顧毛郝龚龔邵万萬钱錢严嚴覃武戴莫孔"
    "向汤湯常温溫康施文牛樊葛邢安齐齊易乔喬伍庞龐颜顏倪庄莊聂聶章鲁魯岳翟殷詹申欧歐耿关關兰蘭焦"
    "俞左柳甘祝包宁寧尚符舒阮柯纪紀梅童凌毕畢单單季裴霍涂成苗谷盛曲翁冉骆駱蓝藍路游辛靳管柴蒙鲍"
    "鮑华華喻祁蒲房滕屈饶饒解牟艾尤阳陽时時穆农農司卓古吉缪繆简簡车車项項连連芦蘆麦麥褚娄婁窦竇"
    "戚岑景党宫宮费費卜冷晏席卫衛米柏宗瞿桂全佟应應臧闵閔苟邬鄔边邊卞姬师師仇栾欒隋商刁沙荣榮巫"
    "寇桑郎甄丛叢仲虞敖巩鞏佘池乐樂匡皮"
)

#: Characters that end a Chinese given name ("我叫张伟今年30岁": 今 is not part of the name).
#: A Chinese surname as a regex: a two-character one first, else one character.
SURNAME_PATTERN = "(?:" + "|".join(SURNAMES_MULTI) + "|[" + "".join(sorted(SURNAMES)) + "])"
NAME_STOP: frozenset[str] = frozenset(
    "今的是在住来來从從电電手我你他她，。！？,.!? 、；;：:和跟与與也都就要想会會能已请請先女"
    "在哦啊呀呢吧嘛喔噢哈订訂号號家公工做现現目"
    # particles closing a sentence ("收件人改成王磊了", "改做陳大文啦")
    "了啦喇咯囉啰吗嗎"
)

CITIES_ZH: tuple[str, ...] = (
    "北京", "上海", "广州", "廣州", "深圳", "杭州", "南京", "成都", "重庆", "重慶", "武汉", "武漢",
    "西安", "天津", "苏州", "蘇州", "长沙", "長沙", "郑州", "鄭州", "青岛", "青島", "沈阳", "瀋陽",
    "大连", "大連", "厦门", "廈門", "宁波", "寧波", "合肥", "昆明", "福州", "济南", "濟南",
    "哈尔滨", "哈爾濱", "长春", "長春", "石家庄", "石家莊", "南昌", "贵阳", "貴陽", "南宁", "南寧",
    "太原", "兰州", "蘭州", "乌鲁木齐", "烏魯木齊", "拉萨", "拉薩", "海口", "三亚", "三亞", "珠海",
    "东莞", "東莞", "佛山", "无锡", "無錫", "常州", "温州", "溫州", "香港", "澳门", "澳門", "台北",
    "臺北", "台中", "臺中", "高雄", "新竹", "台南", "臺南", "东京", "東京", "大阪", "首尔", "首爾",
    "新加坡", "纽约", "紐約", "伦敦", "倫敦", "巴黎", "柏林", "悉尼", "雪梨", "洛杉矶", "洛杉磯",
    "旧金山", "舊金山", "多伦多", "多倫多", "温哥华", "溫哥華", "曼谷", "吉隆坡", "莫斯科", "罗马",
    "羅馬", "马德里", "馬德里", "阿姆斯特丹", "慕尼黑", "墨尔本", "墨爾本", "西雅图", "西雅圖",
)

#: Provinces, regions and the countries themselves: where a Chinese address may start.
PROVINCES_ZH: tuple[str, ...] = (
    "中国", "中國", "台湾", "台灣", "臺灣", "广东", "廣東", "浙江", "江苏", "江蘇", "福建", "四川",
    "山东", "山東", "河南", "河北", "湖南", "湖北", "安徽", "江西", "山西", "陕西", "陝西", "辽宁",
    "遼寧", "吉林", "黑龙江", "黑龍江", "云南", "雲南", "贵州", "貴州", "广西", "廣西", "海南",
    "甘肃", "甘肅", "青海", "宁夏", "寧夏", "新疆", "西藏", "内蒙古", "內蒙古", "新北", "桃园",
    "桃園", "基隆", "宜兰", "宜蘭", "花莲", "花蓮", "台东", "臺東", "屏东", "屏東", "彰化", "嘉义",
    "嘉義", "云林", "雲林", "苗栗", "南投", "九龙", "九龍", "新界", "沙田", "荃湾", "荃灣", "旺角",
    "铜锣湾", "銅鑼灣", "尖沙咀", "中环", "中環",
)

CITIES_EN: tuple[str, ...] = (
    "Beijing", "Shanghai", "Guangzhou", "Shenzhen", "Hangzhou", "Nanjing", "Chengdu", "Chongqing",
    "Wuhan", "Xi'an", "Tianjin", "Suzhou", "Hong Kong", "Macau", "Taipei", "Kaohsiung", "Tokyo",
    "Osaka", "Kyoto", "Seoul", "Singapore", "Bangkok", "Sydney", "Melbourne", "London", "Paris",
    "Berlin", "Munich", "Hamburg", "Amsterdam", "Madrid", "Barcelona", "Rome", "Milan", "Vienna",
    "Zurich", "Geneva", "Prague", "Dublin", "Lisbon", "Stockholm", "Oslo", "Copenhagen",
    "Helsinki", "Moscow", "Istanbul", "Dubai", "Toronto", "Vancouver", "Montreal", "New York",
    "Boston", "Chicago", "Seattle", "San Francisco", "Los Angeles", "San Diego", "Austin",
    "Denver", "Miami", "Atlanta", "Philadelphia", "Portland", "Houston", "Dallas", "Mexico City",
    "Rio de Janeiro", "Buenos Aires", "Mumbai", "Delhi", "Bangalore", "Cairo", "Nairobi",
    "Cape Town", "Auckland", "Edinburgh", "Manchester", "Brooklyn", "Chicago",
)

PRODUCT_BRANDS: tuple[str, ...] = (
    "iPhone", "iPad", "MacBook Pro", "MacBook Air", "MacBook", "AirPods", "Apple Watch", "Galaxy",
    "Pixel", "ThinkPad", "Surface", "PlayStation", "Xbox", "Switch", "Kindle", "RTX", "GTX",
    "Model", "Mate", "小米", "红米", "紅米", "Redmi", "华为", "華為", "荣耀", "榮耀", "OPPO", "vivo",
    "OnePlus", "一加", "大疆", "DJI", "戴森", "Dyson", "Nintendo Switch", "Sony", "索尼",
)

#: Words that look like a name after "I'm" but are not one.
NOT_NAMES_EN: frozenset[str] = frozenset(
    ["Sorry", "Fine", "Good", "Great", "Happy", "Glad", "Sure", "Not", "So", "Just", "Really", "Very", "Back", "Here", "There", "Going", "Thinking", "Looking", "Trying", "Working", "Feeling", "Still", "Also", "Always", "Never", "Excited", "Interested", "Ready", "Done", "Okay", "OK", "The", "A", "An", "In", "On", "At", "From", "Tired", "Busy", "Free", "Home", "Hungry", "Curious", "Grateful", "Thankful", "Proud", "Sad", "Worried", "Afraid", "Scared", "Learning", "Planning", "Hoping", "Considering", "Currently", "Actually", "Super", "Totally", "Gonna", "Getting", "Doing", "Reading", "Watching", "Taking", "Making", "Having", "Living", "Moving", "Staying",
     # levels and titles: "I'm Gold now" names a tier, not a person
     "Gold", "Silver", "Platinum", "Diamond", "Bronze", "Premium", "Basic", "Elite", "Vip", "VIP",
     "Member", "Members", "Customer", "Manager", "Doctor", "Engineer", "Student", "Teacher",
     "Nurse", "Driver", "Owner", "Admin", "Everyone", "Nobody", "Someone", "Anyone", "Me", "It",
     "This", "That", "We", "They", "Our", "My", "Your", "Hello", "Hi", "Hey", "Thanks"]
)
