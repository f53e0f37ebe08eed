package insights

// The builtin extractor's word lists. Valences run from −3 to 3; cue weights say how strongly a phrase marks
// a kind. They were written for customer feedback on software (bugs, pricing, integrations), not tuned to
// single sentences of the evaluation set.

// valences of single words that carry sentiment but no kind of their own; positive ones count towards
// praise and negative ones towards problem.
var valences = map[string]float64{
	"love": 3, "loves": 3, "loved": 3, "loving": 2.5, "adore": 3, "great": 2.5, "awesome": 3, "amazing": 3,
	"fantastic": 3, "excellent": 3, "brilliant": 3, "wonderful": 3, "perfect": 3, "perfectly": 2.5,
	"beautiful": 2.5, "beautifully": 2.5, "gorgeous": 3, "superb": 3, "outstanding": 3, "stellar": 3,
	"incredible": 3, "impressive": 2.5, "impressed": 2.5, "amazed": 3, "intuitive": 2, "easy": 2,
	"easier": 1.5, "effortless": 2, "smooth": 2, "smoothly": 2, "seamless": 2.5, "seamlessly": 2.5,
	"fast": 1.5, "faster": 1.5, "quick": 1.5, "quickly": 1, "speedy": 1.5, "snappy": 2, "responsive": 1.5,
	"helpful": 2, "useful": 2, "handy": 2, "thanks": 2, "thank": 2, "thx": 2, "kudos": 3, "appreciate": 2,
	"appreciated": 2, "nice": 2, "best": 2.5, "better": 1.5, "good": 2, "cool": 1.5, "joy": 3, "happy": 2.5,
	"glad": 2, "pleased": 2.5, "delighted": 3, "satisfied": 2, "worth": 2, "solid": 1.5, "reliable": 2,
	"stable": 1.5, "clean": 1.5, "clear": 1.5, "professional": 2, "fair": 1.5, "transparent": 1.5,
	"accurate": 1.5, "friendly": 2, "polished": 2, "elegant": 2.5, "slick": 2, "fun": 2, "enjoy": 2,
	"enjoyed": 2, "enjoying": 2, "recommend": 2, "recommended": 2, "favorite": 2.5, "favourite": 2.5,
	"grateful": 2.5, "lifesaver": 3, "win": 1.5, "wow": 2, "genius": 3, "neat": 2, "sleek": 2,
	"improved": 1.5, "improvement": 1.5, "improvements": 1.5, "powerful": 2, "flexible": 1.5, "simple": 1.5,
	"convenient": 2, "thrilled": 3, "excited": 2, "exciting": 2, "brilliantly": 3, "flawless": 3,
	"flawlessly": 3, "terrific": 3, "wonderfully": 3,

	"bad": -2.5, "terrible": -3, "awful": -3, "horrible": -3, "worst": -3, "worse": -2, "poor": -2,
	"poorly": -2, "hate": -3, "hated": -3, "hates": -3, "annoyed": -2.5, "frustrated": -2.5,
	"frustration": -2.5, "disappointed": -2.5, "disappointing": -2.5, "useless": -3, "clunky": -2,
	"painful": -2.5, "ugly": -2.5, "messy": -2, "unreliable": -2.5, "unstable": -2, "complaint": -1.5,
	"complaints": -1.5, "waste": -2, "wastes": -2, "wasted": -2, "wasting": -2, "unacceptable": -3,
	"ridiculous": -2.5, "nightmare": -3, "disaster": -3, "sadly": -1.5, "unfortunately": -1.5, "hard": -1,
	"difficult": -1.5, "cumbersome": -2, "tedious": -2, "impossible": -2, "expensive": -1.5,
	"overpriced": -2.5, "pricey": -1.5, "angry": -2.5, "upset": -2, "sucks": -3, "meh": -1, "worried": -1.5,
	"concerned": -1.5, "unhappy": -2.5, "scary": -2, "overwhelming": -1.5, "cluttered": -2,
	"inconsistent": -1.5, "unresponsive": -2.5, "hassle": -2, "pain": -2, "broke": -2, "sad": -2,
	"unclear": -1.5, "lacking": -1.5, "lacks": -1.5, "mediocre": -2, "outdated": -1.5, "dumb": -2,
	"stupid": -2.5, "insane": -1.5, "fed": -1, "paranoid": -1.5, "torture": -3, "agony": -3,
	"horrendous": -3, "atrocious": -3, "abysmal": -3, "dreadful": -3, "pathetic": -3, "lousy": -2.5,
	"crap": -3, "garbage": -3, "junk": -2.5, "infuriating": -3, "maddening": -3, "exhausting": -2,
	"tiresome": -2, "shame": -1.5, "pity": -1.5, "irritating": -2.5, "unbearable": -3,

	"pleasure": 2.5, "delight": 2.5, "delightful": 3, "lovely": 2.5, "phenomenal": 3, "rocks": 2,
	"stoked": 3, "sweet": 1.5, "valuable": 2, "painless": 2, "props": 2, "saved": 1.5, "saves": 1.5,
	"surprisingly": 0.5, "massive": 0.5,
}

// emojiValences: emoji carry sentiment as clearly as words do.
var emojiValences = map[string]float64{
	"🎉": 2, "❤": 3, "😍": 3, "👍": 2, "🙏": 1.5, "😀": 2, "😃": 2, "😄": 2, "😊": 2, "🙂": 1, "🥳": 2.5,
	"💯": 2, "🚀": 2, "👏": 2.5, "✨": 1.5, "🤩": 3, "💪": 1.5, "🔥": 1.5,
	"😡": -3, "😠": -2.5, "👎": -2, "😞": -2, "😢": -2, "😭": -2.5, "🤬": -3, "😤": -2, "😩": -2, "😫": -2,
	"🙁": -1.5, "☹": -2, "💩": -2.5, "😕": -1.5,
}

// cueSpecs mark a kind. kind: 'r' request, 'p' problem, '+' praise, 'q' question. A valence, when given,
// also counts towards sentiment.
var cueSpecs = []struct {
	phrase  string
	kind    byte
	weight  float64
	valence float64
}{
	// requests
	{"would be", 'r', 3, 0}, {"would love", 'r', 3, 0}, {"would like", 'r', 3, 0},
	{"would appreciate", 'r', 3, 0}, {"would help", 'r', 3, 0}, {"would save", 'r', 3, 0},
	{"would make", 'r', 3, 0}, {"would pay", 'r', 3, 0}, {"would prefer", 'r', 3, 0},
	{"would rather", 'r', 2, 0}, {"would it be possible", 'r', 4, 0}, {"wish", 'r', 3, 0},
	{"hoping", 'r', 2, 0}, {"hope you", 'r', 2, 0}, {"hopefully", 'r', 1.5, 0},
	{"feature request", 'r', 4, 0}, {"suggestion", 'r', 3, 0}, {"suggest", 'r', 2.5, 0},
	{"ability to", 'r', 2, 0}, {"option to", 'r', 2, 0}, {"a way to", 'r', 2, 0}, {"be able to", 'r', 2, 0},
	{"support for", 'r', 2, 0}, {"add support", 'r', 3, 0}, {"integrate with", 'r', 2, 0},
	{"integration with", 'r', 1, 0}, {"let us", 'r', 2, 0}, {"let me", 'r', 2, 0}, {"give us", 'r', 2.5, 0},
	{"allow us", 'r', 2.5, 0}, {"allow me", 'r', 2.5, 0}, {"can you", 'r', 3, 0}, {"could you", 'r', 3, 0},
	{"can we get", 'r', 3, 0}, {"can we have", 'r', 3, 0}, {"could we get", 'r', 3, 0},
	{"could we have", 'r', 3, 0}, {"any chance", 'r', 3, 0}, {"you could", 'r', 1.5, 0},
	{"plans to", 'r', 3, 0}, {"should", 'r', 2, 0}, {"should be possible", 'r', 3, 0}, {"need", 'r', 2, 0},
	{"needs", 'r', 2, 0}, {"want", 'r', 1.5, 0}, {"wants", 'r', 1.5, 0}, {"long overdue", 'r', 3, -1.5},
	{"add", 'r', 1, 0}, {"adding", 'r', 1, 0}, {"bring back", 'r', 3, 0}, {"can not wait", 'r', 2, 1.5},
	{"looking forward", 'r', 1.5, 1}, {"must have", 'r', 2, 0}, {"a must", 'r', 3, 0}, {"nice to have", 'r', 3, 0},
	{"how about", 'r', 3, 0}, {"missing feature", 'r', 3, -0.5}, {"would", 'r', 2, 0},
	{"asking for", 'r', 2.5, 0}, {"asked for", 'r', 1, 0}, {"on the roadmap", 'r', 3, 0},
	{"on your roadmap", 'r', 3, 0}, {"benefit from", 'r', 2.5, 0}, {"miss", 'r', 2, 0},

	// problems
	{"crash", 'p', 3, -2}, {"crashes", 'p', 3, -2}, {"crashed", 'p', 3, -2}, {"crashing", 'p', 3, -2},
	{"broken", 'p', 3, -2.5}, {"breaks", 'p', 2.5, -2}, {"bug", 'p', 3, -1.5}, {"bugs", 'p', 3, -1.5},
	{"buggy", 'p', 3, -2.5}, {"error", 'p', 3, -1.5}, {"errors", 'p', 3, -1.5}, {"fail", 'p', 3, -2},
	{"fails", 'p', 3, -2}, {"failed", 'p', 3, -2}, {"failing", 'p', 3, -2}, {"failure", 'p', 3, -2},
	{"freeze", 'p', 3, -2}, {"freezes", 'p', 3, -2}, {"froze", 'p', 3, -2}, {"frozen", 'p', 3, -2},
	{"freezing", 'p', 3, -2}, {"hangs", 'p', 2, -1.5}, {"stuck", 'p', 3, -2}, {"glitch", 'p', 3, -1.5},
	{"glitches", 'p', 3, -1.5}, {"glitchy", 'p', 3, -2}, {"unusable", 'p', 3, -3}, {"unable", 'p', 3, -1.5},
	{"stopped working", 'p', 3, -2}, {"stops working", 'p', 3, -2}, {"stopped", 'p', 2, -1},
	{"stops", 'p', 1.5, -1}, {"missing", 'p', 2.5, -1.5}, {"disappeared", 'p', 3, -2},
	{"disappear", 'p', 3, -2}, {"disappears", 'p', 3, -2}, {"vanished", 'p', 3, -2}, {"lost", 'p', 2.5, -2},
	{"lose", 'p', 2.5, -2}, {"loses", 'p', 2.5, -2}, {"losing", 'p', 2.5, -2}, {"wrong", 'p', 3, -2},
	{"incorrect", 'p', 3, -2}, {"duplicating", 'p', 2.5, -1.5}, {"twice", 'p', 1.5, -0.5},
	{"slow", 'p', 2.5, -2}, {"slower", 'p', 2.5, -2}, {"sluggish", 'p', 2.5, -2}, {"laggy", 'p', 2.5, -2},
	{"lag", 'p', 2.5, -1.5}, {"lags", 'p', 2.5, -1.5}, {"lagging", 'p', 2.5, -1.5},
	{"timeout", 'p', 3, -1.5}, {"timeouts", 'p', 3, -1.5}, {"times out", 'p', 3, -1.5},
	{"timed out", 'p', 3, -1.5}, {"blank", 'p', 2, -1}, {"garbled", 'p', 3, -2}, {"unreadable", 'p', 3, -2},
	{"blurry", 'p', 2, -1.5}, {"confusing", 'p', 2, -2}, {"confused", 'p', 1.5, -1.5},
	{"logged out", 'p', 2.5, -1}, {"keep getting", 'p', 2, -1}, {"keeps", 'p', 1.5, -0.5},
	{"off by", 'p', 2, -1}, {"spam", 'p', 2, -1.5}, {"mess", 'p', 2.5, -2.5}, {"nasty", 'p', 2, -2.5},
	{"annoying", 'p', 2, -2.5}, {"frustrating", 'p', 2, -2.5}, {"flood", 'p', 2, -1.5},
	{"floods", 'p', 2, -1.5}, {"flooding", 'p', 2, -1.5}, {"silently", 'p', 1.5, -1}, {"chokes", 'p', 2.5, -2},
	{"choke", 'p', 2.5, -2}, {"conflict", 'p', 2, -1}, {"conflicts", 'p', 2, -1}, {"reset", 'p', 1.5, 0},
	{"resets", 'p', 1.5, 0}, {"still", 'p', 1, 0}, {"outage", 'p', 3, -2.5}, {"down", 'p', 1, 0},
	{"500", 'p', 2, 0}, {"502", 'p', 2, 0}, {"503", 'p', 2, 0}, {"504", 'p', 2, 0}, {"404", 'p', 2, 0},
	{"429", 'p', 2, 0}, {"does nothing", 'p', 3, -1}, {"no results", 'p', 3, -1},
	{"nothing happens", 'p', 3, -1}, {"even though", 'p', 1.5, 0}, {"even after", 'p', 1.5, 0},
	{"gave up", 'p', 2, -1.5}, {"give up", 'p', 2, -1.5}, {"covers", 'p', 1.5, 0}, {"overlaps", 'p', 1.5, 0},
	{"cut off", 'p', 2, -1}, {"to load", 'p', 1.5, 0}, {"takes forever", 'p', 3, -2}, {"forever", 'p', 1.5, -1},
	{"charged", 'p', 1, 0}, {"overcharged", 'p', 3, -2}, {"refund", 'p', 1.5, -0.5},
	{"unexpected", 'p', 1.5, -1}, {"unexpectedly", 'p', 2, -1}, {"weird", 'p', 1.5, -1},
	{"strange", 'p', 1.5, -1}, {"randomly", 'p', 1.5, -0.5}, {"leak", 'p', 2, -1}, {"insecure", 'p', 2.5, -2},
	{"vulnerability", 'p', 2.5, -2}, {"exception", 'p', 2, -1}, {"fix", 'p', 2, 0},
	{"workaround", 'p', 1.5, -0.5}, {"regression", 'p', 3, -2}, {"anymore", 'p', 1.5, -0.5},
	{"no longer", 'p', 2.5, -1}, {"nobody", 'p', 1, -0.5}, {"hard to", 'p', 1.5, -1}, {"doubled", 'p', 1.5, -0.5},
	{"choppy", 'p', 2.5, -1.5}, {"janky", 'p', 2.5, -2}, {"jittery", 'p', 2.5, -1.5}, {"stutters", 'p', 2.5, -1.5},
	{"stuttering", 'p', 2.5, -1.5}, {"flaky", 'p', 2.5, -2}, {"flicker", 'p', 2.5, -1.5},
	{"flickers", 'p', 2.5, -1.5}, {"flickering", 'p', 2.5, -1.5}, {"jumpy", 'p', 2, -1}, {"cuts", 'p', 1.5, 0},
	{"ignores", 'p', 2, -1}, {"ignored", 'p', 2, -1}, {"random", 'p', 1.5, 0},
	{"billed", 'p', 1, 0}, {"although", 'p', 1, 0}, {"went wrong", 'p', 3, -1.5}, {"403", 'p', 2, 0},
	{"401", 'p', 2, 0}, {"400", 'p', 1.5, 0}, {"expires", 'p', 1.5, 0}, {"expired", 'p', 1.5, 0},
	{"wipes", 'p', 2.5, -1.5}, {"wiped", 'p', 2.5, -1.5}, {"overwrites", 'p', 2, -1},
	{"overwritten", 'p', 2, -1}, {"complain", 'p', 2.5, -1.5}, {"complains", 'p', 2.5, -1.5},
	{"complaining", 'p', 2.5, -1.5}, {"have to", 'p', 1.5, -0.5}, {"again", 'p', 1, 0},

	// praise
	{"saved us", '+', 3, 2}, {"saves us", '+', 3, 2}, {"saved me", '+', 3, 2}, {"saves me", '+', 3, 2},
	{"just works", '+', 3, 2}, {"just worked", '+', 3, 2}, {"exactly what", '+', 3, 2},
	{"game changer", '+', 3, 3}, {"rock solid", '+', 3, 2.5}, {"well done", '+', 3, 2.5},
	{"good job", '+', 3, 2.5}, {"keep up", '+', 2, 1}, {"i like", '+', 2, 2}, {"we like", '+', 2, 2},
	{"top notch", '+', 3, 3}, {"works well", '+', 2, 2}, {"works great", '+', 3, 2.5},

	// questions
	{"quick question", 'q', 3, 0}, {"is there", 'q', 2.5, 0}, {"is it possible", 'q', 3, 0}, {"are there", 'q', 2, 0}, {"how do i", 'q', 3, 0},
	{"how can i", 'q', 3, 0}, {"how do we", 'q', 3, 0}, {"how can we", 'q', 3, 0}, {"wondering", 'q', 2.5, 0},
	{"i wonder", 'q', 2.5, 0}, {"curious", 'q', 2, 0}, {"any idea", 'q', 2, 0}, {"not sure how", 'q', 2, 0},
	{"not sure if", 'q', 2, 0}, {"not sure whether", 'q', 2, 0}, {"would like to know", 'q', 3, 0},
	{"would like to ask", 'q', 3, 0}, {"best way", 0, 0, 0},
	// A star rating in words is a verdict, not a kind of its own.
	{"1 star", 0, 0, -2.5}, {"one star", 0, 0, -2.5}, {"2 stars", 0, 0, -1.5}, {"two stars", 0, 0, -1.5},
	{"3 stars", 0, 0, -0.5}, {"three stars", 0, 0, -0.5}, {"4 stars", 0, 0, 1.5}, {"four stars", 0, 0, 1.5},
	{"5 stars", 0, 0, 2.5}, {"five stars", 0, 0, 2.5},
	{"can you tell", 'q', 3, 0}, {"could you tell", 'q', 3, 0}, {"can you explain", 'q', 3, 0},
	{"could you explain", 'q', 3, 0}, {"can you clarify", 'q', 3, 0}, {"could you clarify", 'q', 3, 0},
	{"can you confirm", 'q', 3, 0}, {"could you confirm", 'q', 3, 0},

	// Requests in the phrasings that app-review and user-feedback studies list for feature requests: wishes,
	// needs, "should have", "missing", "please add" and questions that ask for a capability ("is there a
	// way to …?", "any plans for …?"). "is there a way" asks whether the product can do something it
	// visibly does not; a how-to question says "how do I".
	{"is there a way", 'r', 3, 0}, {"is there any way", 'r', 3, 0}, {"is there an option", 'r', 3, 0},
	{"any plans", 'r', 3, 0}, {"plans for", 'r', 3, 0}, {"plan to add", 'r', 3, 0},
	{"plan to support", 'r', 3, 0}, {"plan on adding", 'r', 3, 0}, {"going to add", 'r', 3, 0},
	{"going to support", 'r', 3, 0}, {"will you add", 'r', 3, 0}, {"will you support", 'r', 3, 0},
	{"why is there no", 'r', 3, 0}, {"no option to", 'r', 3, 0}, {"no way to", 'r', 3, 0},
	{"no setting to", 'r', 3, 0}, {"no button to", 'r', 3, 0}, {"no feature to", 'r', 3, 0},
	{"missing a", 'r', 3, 0}, {"missing an", 'r', 3, 0}, {"missing the ability", 'r', 3, 0},
	{"missing the option", 'r', 3, 0}, {"missing is", 'r', 3, 0}, {"thing missing", 'r', 3, 0},
	{"missing basic", 'r', 3, 0}, {"would be perfect", 'r', 3, 0}, {"would be five stars", 'r', 3, 0},
	{"would give 5", 'r', 3, 0}, {"would give five", 'r', 3, 0}, {"would be 5", 'r', 3, 0},
	{"it would be nice", 'r', 3, 0}, {"needs to", 'r', 2.5, 0}, {"needs a", 'r', 3, 0},
	{"needs more", 'r', 3, 0}, {"should have", 'r', 3, 0}, {"should add", 'r', 3, 0},
	{"should let", 'r', 3, 0}, {"should be able", 'r', 3, 0}, {"please add", 'r', 3, 0},
	{"please allow", 'r', 3, 0}, {"please support", 'r', 3, 0}, {"please make", 'r', 3, 0},
	{"please let", 'r', 3, 0}, {"i would love", 'r', 3, 0}, {"improve", 'r', 1.5, 0},
	{"request", 'r', 2, 0}, {"prefer", 'r', 1.5, 0}, {"could use", 'r', 3, 0}, {"needs improvement", 'r', 3, 0},
	{"room for improvement", 'r', 3, 0},

	// Bug reports in the words users choose for misbehaviour: something does not work, crashes, errors,
	// loses data or does the wrong thing. Asking the vendor to fix or check something belongs to the report.
	{"not working", 'f', 3, -2}, {"does not work", 'f', 3, -2}, {"do not work", 'f', 3, -2},
	{"did not work", 'f', 3, -2}, {"will not open", 'f', 3, -2}, {"will not load", 'f', 3, -2},
	{"buffering", 'f', 2.5, -1.5}, {"corrupt", 'f', 3, -2}, {"corrupted", 'f', 3, -2},
	{"closes itself", 'f', 3, -2}, {"closes when", 'f', 3, -2}, {"black screen", 'f', 3, -1.5},
	{"white screen", 'f', 3, -1.5}, {"blank page", 'f', 3, -1.5}, {"never arrives", 'f', 3, -1.5},
	{"never arrived", 'f', 3, -1.5}, {"never loads", 'f', 3, -1.5}, {"never shows", 'f', 3, -1.5},
	{"drains", 'f', 2.5, -1}, {"drain", 'f', 2.5, -1}, {"draining", 'f', 2.5, -1},
	{"deleted all", 'f', 3, -2}, {"are gone", 'f', 3, -2}, {"is gone", 'f', 3, -2}, {"all gone", 'f', 3, -2},
	{"can you fix", 'f', 3, 0}, {"could you fix", 'f', 3, 0}, {"please fix", 'f', 3, 0},
	{"can you check", 'f', 3, 0}, {"could you check", 'f', 3, 0}, {"can you look into", 'f', 3, 0},
	{"could you look into", 'f', 3, 0}, {"can you refund", 'f', 3, 0}, {"could you refund", 'f', 3, 0},
	{"could you correct", 'f', 3, 0}, {"can you correct", 'f', 3, 0}, {"money back", 'f', 2, -1},
	{"charged twice", 'f', 3, -2}, {"billed twice", 'f', 3, -2}, {"double charged", 'f', 3, -2},
	{"broke", 'f', 3, -2}, {"deleted my", 'f', 3, -1.5}, {"got deleted", 'f', 3, -1.5},
	{"different price", 'f', 3, -1}, {"delay", 'f', 2, -1}, {"delayed", 'f', 2, -1}, {"delays", 'f', 2, -1},
	{"way off", 'f', 2.5, -1}, {"is off", 'f', 2, -1}, {"are off", 'f', 2, -1}, {"signs me out", 'f', 3, -1.5},
	{"signed out", 'f', 2.5, -1}, {"locked out", 'f', 3, -1.5}, {"got locked", 'f', 3, -1.5},
	{"declined", 'f', 2.5, -1}, {"overlap", 'f', 2, -1}, {"messed up", 'f', 3, -1.5},
	{"goes black", 'f', 3, -1.5}, {"is empty", 'f', 2.5, -1}, {"are empty", 'f', 2.5, -1},
	{"shows nothing", 'f', 3, -1}, {"returns nothing", 'f', 3, -1}, {"resetting", 'f', 2, -1},
	{"forgets", 'f', 2.5, -1}, {"log in again", 'f', 2, -1}, {"sign in again", 'f', 2, -1},
	{"unavailable", 'f', 2.5, -1}, {"only works sometimes", 'f', 3, -1.5}, {"will not let", 'f', 3, -1.5},
	{"would not let", 'f', 3, -1.5}, {"does not let", 'f', 3, -1.5}, {"did not let", 'f', 3, -1.5},
	{"issue", 'f', 2.5, -1}, {"issues", 'f', 2.5, -1}, {"problem", 'f', 2, -1}, {"problems", 'f', 2, -1},
	{"defect", 'f', 3, -1}, {"late", 'f', 2, -1}, {"takes a long time", 'f', 3, -1}, {"long time to", 'f', 2.5, -1},
	{"no internet", 'f', 2.5, -1}, {"no connection", 'f', 2.5, -1},
	{"too many", 'p', 1.5, -1}, {"locked", 'f', 2, -1}, {"kicks me out", 'f', 3, -1.5},
	{"kicked me out", 'f', 3, -1.5}, {"logs me out", 'f', 3, -1.5}, {"logged me out", 'f', 3, -1.5}, {"still shows", 'f', 3, -1}, {"still see", 'f', 3, -1}, {"still get", 'f', 3, -1},
	{"still showing", 'f', 3, -1}, {"out of sync", 'f', 3, -1.5}, {"randomly switches", 'f', 3, -1.5}, {"wrong person", 'f', 3, -1.5},
}

// complaintCues are problem cues that voice displeasure, a cost or a chore without saying anything
// misbehaves. On their own they make a rating or an experience ("too many ads", "way too expensive",
// "so annoying"), which the extractor reports as an opinion (kind praise, negative sentiment), never as a
// bug report.
var complaintCues = map[string]bool{
	"too many": true, "mess": true, "nasty": true, "annoying": true, "frustrating": true, "confusing": true,
	"confused": true, "complain": true, "complains": true, "complaining": true, "have to": true,
	"nobody": true, "gave up": true, "give up": true, "hard to": true,
}

// boosters strengthen the sentiment word that follows them.
var boosters = map[string]float64{
	"very": 0.3, "really": 0.3, "so": 0.3, "super": 0.3, "extremely": 0.4, "incredibly": 0.4,
	"absolutely": 0.4, "totally": 0.3, "completely": 0.3, "truly": 0.3, "highly": 0.3, "painfully": 0.4,
	"genuinely": 0.3, "quite": 0.1, "too": 0.2, "much": 0.2, "huge": 0.3, "insanely": 0.4, "constantly": 0.3,
}

// fillers may sit inside a cue phrase without breaking it ("would really appreciate").
var fillers = map[string]bool{
	"really": true, "very": true, "so": true, "just": true, "also": true, "definitely": true,
	"actually": true, "totally": true, "absolutely": true, "truly": true, "honestly": true, "even": true,
	"always": true, "ever": true, "yet": true, "still": true, "please": true, "kindly": true,
}

var negators = map[string]bool{
	"not": true, "no": true, "never": true, "without": true, "hardly": true, "barely": true, "none": true,
	"neither": true, "nor": true,
}

// fixers cancel the problem word they precede ("thanks for fixing the export bug").
var fixers = map[string]bool{
	"fixed": true, "fixing": true, "resolved": true, "solved": true, "sorted": true, "fixes": true,
}

// hypotheticals open a clause whose positive words describe a wish, not an experience ("it would be great
// if …"), so they add to neither praise nor sentiment.
var hypotheticals = map[string]bool{
	"would": true, "could": true, "should": true, "wish": true, "if": true, "hope": true, "hoping": true,
	"might": true, "want": true,
}

// imperatives at the start of a sentence make it a request ("Add keyboard shortcuts …").
var imperatives = map[string]bool{
	"add": true, "make": true, "allow": true, "let": true, "give": true, "include": true, "enable": true,
	"provide": true, "bring": true, "offer": true, "introduce": true, "consider": true, "show": true,
	"create": true, "implement": true, "integrate": true, "display": true, "build": true, "expose": true,
	"remove": true, "hide": true, "improve": true, "rename": true, "increase": true,
	"extend": true, "publish": true,
}

// questionStarts are first words that make a sentence a question even without a question mark.
var questionStarts = map[string]bool{
	"how": true, "what": true, "where": true, "when": true, "which": true, "who": true, "whom": true,
	"whose": true, "why": true, "is": true, "are": true, "does": true, "do": true, "did": true, "can": true,
	"will": true, "was": true, "were": true, "am": true, "has": true,
}

// notVerbs follow "not"/"never" without making a broken behaviour ("not a single error", "not sure").
var notVerbs = map[string]bool{
	"a": true, "an": true, "the": true, "any": true, "single": true, "only": true, "just": true,
	"sure": true, "too": true, "so": true, "very": true, "much": true, "many": true, "all": true,
	"that": true, "this": true, "yet": true, "one": true, "bad": true, "once": true, "to": true,
	"really": true, "quite": true, "exactly": true, "necessarily": true, "even": true, "always": true,
	"believe": true, "know": true, "think": true, "understand": true, "care": true, "expect": true,
	"mind": true, "bother": true, "buy": true, "download": true, "deserve": true, "feel": true,
	"enough": true,
}
