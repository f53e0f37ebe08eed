package insights

import "strings"

// stopWords never start or continue a theme: function words, everyday verbs and time words that say
// nothing about what the feedback is about.
var stopWords = setOf(`
a about above after again against all almost along already also although am among an and another any
anybody anyone anything anyway anywhere are around as at away back be became because become becomes been
before behind being below between both but by can come comes coming could did do does doing done during
each either else enough etc even ever every everybody everyone everything few for from further get gets
getting got gotten had has have having he her here hers herself him himself his how however i if in into is
it its itself just least less let lets like likes liked made make makes making many may me might mine more
most much must my myself near nearly neither no none nor not now of off often on once one only onto or other
others otherwise our ours ourselves out over own per perhaps please quite rather really same she should
since so some somebody someone something sometimes somewhat soon still such than that the their theirs them
themselves then there these they thing things this those though through thus to together too toward towards
under until up upon us very via was we well were what whatever when whenever where wherever whether which
while who whoever whole whom whose why will with within without would yet you your yours yourself
yourselves am ok okay hi hello hey thanks thank regards cheers dear btw pls plz etc yes yeah

use uses used using try tries tried trying want wants wanted need needs needed see sees seeing saw seen know
knows knew think thinks thought feel feels felt look looks looked looking go goes going went gone take takes
took taking taken put puts give gives gave given say says said tell tells told ask asks asked find finds
found seem seems seemed keep keeps kept show shows showed shown happen happens happened happening work
works worked working start starts started allow allows allowed add adds added adding able set sets
click clicks clicked open opens opened run runs running ran become call called mean means meant include
includes included including let get able possible wish hope hoping love loved loves great good nice
sure overall maybe actually basically literally honestly currently recently already always never often usually
today yesterday tomorrow tonight morning evening night now later lately anymore every each last next
monday tuesday wednesday thursday friday saturday sunday weekend weekends
january february march april june july august september october november december
`)

// genericNouns are too broad to be a theme on their own ("app", "feature"), though fine inside a phrase
// ("mobile app", "export feature").
var genericNouns = setOf(`
app application product tool feature option way time day week month year team people lot bit platform
software system service company customer user version update idea question issue problem request
suggestion help hour minute second moment stuff guy folk everyone experience part kind sort type job
place case point reason fact side area end number piece chance plan thanks
matter item thing anything something everything nothing weekly daily monthly yearly hourly today tomorrow
yesterday morning evening night
`)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}
