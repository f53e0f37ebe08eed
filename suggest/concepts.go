package suggest

// concepts is the product vocabulary: for each common thing people ask of a software product, the words
// and phrases they use for it. Both sides of a match are annotated with the concepts they name, so a
// customer's own words meet an idea's title without sharing a word. A phrase matches when all its words
// occur close together in any order; words are compared by stem, so plurals and tenses need no entry.
// The list is meant to be broad and general (any B2B or consumer product), never fitted to one workspace.
var concepts = []struct{ name, phrases string }{
	// Look and feel.
	{"dark mode", "dark|darker|dark mode|dark theme|night mode|night theme|black theme|black background|dark background|eye strain|eyes hurt|hurts my eyes|too bright|blinding|bright white|white background|invert colors|invert colours|dim light|low light|late at night|oled"},
	{"appearance", "theme|themes|color scheme|colour scheme|colors|colours|appearance|look and feel|styling|skin|palette"},
	{"font size", "font|fonts|font size|text size|bigger text|larger text|small text|tiny text|hard to read|zoom|zoom in|readability"},
	{"layout", "layout|density|compact|spacing|cluttered|clutter|sidebar|menu|menus|navigation|squished|cramped|responsive design"},
	{"branding", "white label|whitelabel|branding|brand|logo|own logo|custom domain|brand colors|brand colours|company colors|vanity url"},
	{"accessibility", "accessibility|accessible|a11y|screen reader|screenreader|voiceover|voice over|nvda|jaws|talkback|wcag|section 508|ada compliance|blind|visually impaired|low vision|aria|alt text|high contrast|disability|disabilities|assistive|dyslexia|color blind|colour blind"},
	{"keyboard shortcuts", "shortcut|shortcuts|hotkey|hotkeys|keybinding|keybindings|key binding|key bindings|keyboard|keystroke|without mouse|without the mouse|reaching for the mouse|ctrl|cmd|command palette|vim keys|power user|power users"},
	{"print", "print|printing|printer|printout|print out|printed|hard copy|paper copy|printable|print friendly|print preview|a4|letter size"},
	{"localization", "language|languages|translate|translation|translated|localization|localisation|localize|localise|locale|i18n|l10n|multilingual|german|deutsch|french|francais|spanish|espanol|japanese|chinese|mandarin|portuguese|italian|dutch|korean|polish|arabic|hebrew|right to left|rtl|native language|foreign language|non english|speak english"},

	// Speed and reliability.
	{"performance", "slow|slowly|slowness|slower|sluggish|lag|laggy|lagging|performance|speed|speed up|faster|fast|quicker|snappy|takes forever|takes ages|load time|loading time|page load|loads slowly|spinner|spinning|hangs|freezes|freeze up|crawl|crawls|unresponsive|latency|seconds to load|minutes to load|time out|timeout|timeouts|heavy|optimize|optimise"},
	{"reliability", "crash|crashes|crashing|bug|bugs|broken|glitch|glitches|error|errors|fails|failing|failure|not working|doesnt work|stopped working|outage|downtime|down|500 error|flaky|unstable"},
	{"offline", "offline|off line|no internet|without internet|no connection|without connection|without a connection|no signal|lose signal|lost signal|lose connection|lost connection|no reception|zero reception|bad reception|airplane mode|flight mode|plane mode|no wifi|without wifi|bad connection|poor connection|spotty connection|connectivity|reconnect|reconnects|back online|no network|dead zone|save locally|local copy|basement|underground"},

	// Platforms.
	{"mobile app", "mobile|mobile app|phone|phones|smartphone|iphone|android|ios|cell phone|cellphone|on the go|app store|play store|handheld"},
	{"tablet", "tablet|tablets|ipad|ipads|galaxy tab|big screen|larger screen"},
	{"desktop app", "desktop app|desktop application|mac app|macos app|windows app|native app|native application|electron|menu bar|tray icon|linux app"},
	{"browser extension", "browser extension|chrome extension|firefox extension|firefox add on|safari extension|bookmarklet|browser plugin"},
	{"web app", "browser|web app|website|web version|site|chrome|firefox|safari|edge browser"},

	// Sign-in and security.
	{"single sign-on", "sso|single sign on|single signon|saml|okta|azure ad|azure active directory|active directory|entra|entra id|idp|identity provider|onelogin|one login|ping identity|pingfederate|adfs|scim|federated|federation|corporate login|company login|corporate identity|login with google|sign in with google|google login|microsoft login|jumpcloud|auth0|keycloak|one password for everything"},
	{"two-factor authentication", "2fa|two factor|2 factor|two step|2 step|mfa|multi factor|multifactor|authenticator|authenticator app|otp|one time code|one time password|totp|security key|yubikey|hardware key|passkey|passkeys|sms code|verification code|second factor|extra security step|extra layer of security"},
	{"login", "login|log in|logging in|logon|log on|sign in|signin|signing in|authenticate|authentication|credentials|logged out|session|sessions|stay logged in|remember me"},
	{"password", "password|passwords|passwort|forgot password|forgotten password|reset password|password reset|reset link|locked out|lockout|lock out|login link|magic link|credentials|passphrase"},
	{"security", "security|secure|protect|protection|breach|insurer|insurance requirement|pentest|penetration test|vulnerability|encryption|encrypt|encrypted|ip allowlist|ip whitelist"},
	{"privacy", "gdpr|privacy|personal data|data protection|ccpa|dpa|data processing agreement|right to be forgotten|delete my data|consent|cookie|cookies"},
	{"data residency", "data residency|eu hosting|hosted in europe|host in europe|eu data center|data center|datacenter|on premise|on premises|on prem|self host|self hosted|self hosting|private cloud"},
	{"audit log", "audit|audit log|audit trail|audit logs|activity log|activity trail|activity history|activity feed|change history|change log|changelog|history|who changed|who made|who did|log of changes|track changes|traceability|forensics|soc2|soc 2|iso 27001|hipaa|compliance|compliant|regulator|regulatory|user actions"},

	// People and access.
	{"permissions", "permission|permissions|role|roles|access level|access levels|access control|access rights|rbac|read only|readonly|view only|viewer|viewers|editor|editors|restrict|restricted|restriction|restrictions|who can|allowed to|not allowed|privilege|privileges|rights|admin rights|lock down|can only see|can see everything|fine grained|granular|too coarse|limited access|hide from"},
	{"guest access", "guest|guests|external|externals|outside|outsider|client access|customer portal|client portal|contractor|contractors|freelancer|freelancers|agency|agencies|invite clients|share with clients|external users|external people|collaborator|collaborators|third party users|partner access|stakeholder|stakeholders|without paying for a seat|free seat|full seat"},
	{"seats", "seat|seats|license|licenses|licence|licences|user limit|add users|invite users|deactivate user|deactivate users|offboarding|offboard|leaves the company|left the company|leaving the company|headcount"},
	{"team", "team|teams|teammate|teammates|colleague|colleagues|coworker|coworkers|co worker|staff|employee|employees|member|members|department|departments|org|organization|organisation"},
	{"mentions", "mention|mentions|mentioning|@|at sign|tag someone|tag my colleague|tag a colleague|tag a coworker|tag coworkers|tag teammates|tag people|tag a person|tag them|ping a coworker|ping a colleague|ping someone|alert that person|notify a colleague|loop in|cc someone"},
	{"comments", "comment|comments|commenting|thread|threads|discussion|discussions|reply|replies|conversation|conversations|note|notes|annotate|annotation"},
	{"assignment", "assign|assigned|assignee|assignees|assignment|assignments|owner|owners|ownership|responsible|delegate|delegation|allocate|allocation|distribute|distribution|route|routing|round robin|on duty|on call|unassigned|give it to|hand off|handoff|workload|load balancing|triage"},

	// Notifications.
	{"notifications", "notification|notifications|notify|notified|alert|alerts|alerted|ping|pings|pinged|push|push notification|buzz|buzzes|buzzing|badge|popup|pop up|heads up|get notified|informed|let me know|reminder|reminders|remind|nudge"},
	{"notification settings", "mute|muted|unmute|turn off|switch off|opt out|opt in|silence|quiet|quiet hours|do not disturb|dnd|snooze|choose which|choose what|pick which|preferences|preference|notification settings|control which|only for|unsubscribe from"},
	{"noise", "too many|flooded|flood|spam|spammed|spammy|overload|overloaded|overwhelmed|overwhelming|noise|noisy|constant|constantly|every single|bombarded|cluttered inbox|hundreds of|dozens of"},
	{"email", "email|emails|e mail|mail|mails|inbox|newsletter|gmail|outlook mail|mailbox"},
	{"digest", "digest|digests|summary|summaries|summarize|summarise|recap|recaps|roundup|round up|overview email|one email|single email|once a day|once a week|per day|daily|weekly|each morning|every morning|end of the day|end of day|bundle|bundled|batch them|aggregate|combined|consolidated|briefing"},
	{"sms", "sms|text message|text messages|texts|whatsapp|telegram|signal app"},

	// Integrations and developers.
	{"slack", "slack|slack channel|slackbot|slack app|slack message|slack notifications"},
	{"team chat", "chat|team chat|chat app|messenger|slack|microsoft teams|ms teams|discord|mattermost|google chat|rocket chat|channel|channels"},
	{"integrations", "integration|integrations|integrate|integrated|connect|connected|connector|connectors|plug into|plugs into|hook up|hook into|hooks into|talk to|work with|third party|plugin|plugins|add on|addon|addons|marketplace|ecosystem"},
	{"zapier", "zapier|zap|zaps|make com|integromat|ifttt|n8n|power automate|tray io|workato|pipedream|without coding|no code|nocode|low code"},
	{"automation", "automate|automated|automation|automations|automatic|automatically|auto|workflow|workflows|trigger|triggers|rule|rules|if then|condition|conditions|recipe|recipes"},
	{"webhooks", "webhook|webhooks|web hook|callback|callbacks|http callback|post request|event notification|endpoint|push events|notify our server|our server|our backend|our servers|event stream|polling|poll|subscribe to events|real time events"},
	{"api", "api|apis|rest|rest api|restful|graphql|endpoint|endpoints|sdk|sdks|developer|developers|dev team|programmatic|programmatically|api key|api access|openapi|swagger|client library"},
	{"rate limits", "rate limit|rate limits|rate limited|rate limiting|ratelimit|throttling|throttle|throttled|429|too many requests|requests per minute|requests per second|requests per hour|request limit|request limits|api limit|api limits|quota|quotas|calls per"},
	{"crm", "crm|salesforce|hubspot|pipedrive|zoho crm|dynamics|sales pipeline|leads|deals|opportunities"},
	{"help desk", "zendesk|intercom|freshdesk|helpdesk|help desk|support ticket|support tickets|service desk|customer support tool"},
	{"cloud storage", "google drive|drive|dropbox|onedrive|one drive|box com|sharepoint|icloud drive"},
	{"video calls", "zoom|google meet|video call|video calls|webex|video conference|video meeting"},
	{"import", "import|imports|importer|importing|migrate|migrating|migration|move from|moving from|moving off|move off|moving away from|switch from|switching from|switching over|bring over|bring in|bring our|transfer|carry over|trello|asana|jira|monday com|clickup|basecamp|notion|wrike|smartsheet|airtable|todoist|existing data"},
	{"export", "export|exports|exporting|exporter|download|downloads|downloadable|spreadsheet|spreadsheets|excel|xlsx|xls|csv|tsv|google sheets|sheets|workbook|extract|extract data|dump|data dump|get data out|get the data out|pull data out|save out|save as file|raw data|copy paste|copy and paste|retype"},
	{"backup", "backup|backups|back up|snapshot|snapshots|archive copy|restore point|disaster recovery"},

	// Work items and planning.
	{"tasks", "task|tasks|todo|to do|to dos|todos|card|cards|ticket|tickets|item|items|issue|issues|checklist|checklists|action item|action items|work item"},
	{"projects", "project|projects|board|boards|workspace|workspaces|space|spaces|folder|folders|portfolio|program"},
	{"templates", "template|templates|blueprint|blueprints|boilerplate|preset|presets|predefined|pre defined|reuse|reusable|re use|duplicate|clone|cloning|copy of|starting point|starter kit|scaffold|standard setup|same setup|same structure|from scratch|set up the same"},
	{"recurring", "recurring|recur|recurs|repeat|repeats|repeating|repeated|recurrence|every monday|every week|every month|every day|every year|each week|each month|weekly|monthly|routine|periodic|periodically|regularly|come back|comes back|cron|on a schedule"},
	{"bulk actions", "bulk|bulk edit|bulk action|bulk actions|mass|mass edit|mass update|mass change|many at once|all at once|at once|at the same time|multiple items|several items|multiple rows|several rows|multi select|multiselect|select all|select many|select several|tick several|check several|one by one|one at a time|in one go|in one action|en masse|batch edit|batch update"},
	{"timeline", "gantt|gantt chart|timeline|timelines|roadmap|roadmaps|dependencies|dependency|depends on|blocks|blocked by|blocking|critical path|bars over time|start and end|start date|end date|milestone|milestones|swimlane|swimlanes|long term plan|schedule view"},
	{"calendar", "calendar|calendars|google calendar|gcal|outlook calendar|outlook|ical|ics|icalendar|agenda|planner|appointment|appointments|meeting|meetings|event|events|booking|bookings|schedule app|my schedule"},
	{"deadlines", "due date|due dates|deadline|deadlines|due|overdue|late|expiry|expiration|expires|target date"},
	{"sync", "sync|syncs|synced|syncing|synchronize|synchronise|synchronization|two way|2 way|two way sync|bidirectional|bi directional|mirror|keep in sync|in one place|same place|catch up later|update automatically"},
	{"kanban", "kanban|board view|columns view|column view|drag and drop|drag cards"},
	{"time tracking", "time tracking|track time|tracking time|log time|log hours|logging hours|time log|time entry|time entries|hours|hourly|billable|billable hours|stopwatch|timer|timers|timesheet|timesheets|time sheet|clock in|clock out|worked hours|hours spent|by the hour|start stop|harvest|toggl|tempo|effort"},
	{"priority", "priority|priorities|prioritize|prioritise|prioritization|urgent|urgency|high priority|low priority|importance|severity|critical"},
	{"labels", "tag|tags|tagging|label|labels|labelling|labeling|category|categories|categorize|categorise"},
	{"status", "status|statuses|state|stage|stages|done|open|closed|in progress|blocked|completed|complete"},
	{"archive", "archive|archived|archiving|hide completed|hide done|clean up|cleanup|declutter"},
	{"approvals", "approve|approval|approvals|approver|sign off|signoff|review process|four eyes|sign-off"},
	{"forms", "form|forms|survey|surveys|questionnaire|intake form|typeform|google forms|web form"},
	{"embed", "embed|embedded|embedding|widget|widgets|iframe|on our website|on our site|public page|portal"},
	{"sharing", "share|shares|sharing|shared|shareable|public link|share link|send a link|invite"},
	{"real-time collaboration", "real time|realtime|live|live editing|collaborative editing|co editing|coedit|simultaneous|simultaneously|presence|cursors"},
	{"versions", "version|versions|version history|revision|revisions|previous version|older version|compare versions"},
	{"duplicates", "duplicate|duplicates|merge|merging|dedupe|deduplicate|deduplication|same thing twice|double entry"},
	{"ai", "ai|artificial intelligence|gpt|chatgpt|llm|machine learning|smart suggestions|auto summarize|copilot|assistant"},
	{"onboarding", "onboarding|onboard|tutorial|tutorials|walkthrough|product tour|getting started|guide|guides|how to|learning curve"},

	// Data: fields, search, reports.
	{"custom fields", "custom field|custom fields|field|fields|property|properties|attribute|attributes|column|columns|metadata|meta data|dropdown|drop down|picklist|pick list|our own fields|extra fields|additional fields|store a value|data point|select field|number field|date field"},
	{"search", "search|searching|searches|find|finding|look up|lookup|look for|look into|query|full text|fulltext|keyword|keywords|indexed|indexing|cant find|cannot find|ocr|contents of"},
	{"filters", "filter|filters|filtering|filtered|narrow|narrow down|narrowing|refine|facet|facets|faceted|criteria|saved view|saved views|save a view|custom view|segment|segments|slice|only show|show only|and or|query builder|sort|sorting|sort by|group by"},
	{"reports", "report|reports|reporting|statistics|stats|numbers|figures|kpi|kpis|metrics|analytics|insights|business intelligence|bi|power bi|tableau|looker"},
	{"charts", "chart|charts|charting|graph|graphs|graphing|visualize|visualise|visualization|visualisation|visual|plot|plots|pie|pie chart|bar chart|bar graph|line chart|line graph|histogram|diagram|diagrams|trend line"},
	{"dashboard", "dashboard|dashboards|home screen|home page|homepage|start page|start screen|overview|overview page|main screen|main page|main view|landing page|front page|first screen"},
	{"files", "attachment|attachments|attach|attached|file|files|upload|uploads|uploaded|uploading|document|documents|docs|doc|pdf|pdfs|word document|word documents|docx|design files|asset|assets"},
	{"file size", "size|file size|cap|capped|max size|maximum size|too big|too large|mb|gb|megabyte|megabytes|gigabyte|gigabytes|storage|storage limit|space|disk space|huge files|large files|big files|bigger files|larger files|upload limit"},
	{"images", "photo|photos|picture|pictures|image|images|pic|pics|screenshot|screenshots|jpeg|jpg|png|gif|camera|gallery|snapshot"},
	{"video", "video|videos|mp4|mov|recording|recordings|screen recording|loom|clip|clips"},
	{"pdf", "pdf|pdfs|save as pdf|pdf file|pdf copy"},
	{"maps", "map|maps|location|locations|gps|geolocation|address|addresses|nearby|geo"},
	{"increase", "increase|raise|higher|bigger|larger|more|extend|expand|boost|lift|up the|bump"},

	// Money.
	{"billing", "billing|bill|billed|pay|paying|payment|payments|charge|charges|charged|subscription|subscriptions|plan|plans|pricing|price|prices|cost|costs|fee|fees|credit card|card|procurement|purchase order|membership|tier|account on hold"},
	{"invoices", "invoice|invoices|invoicing|receipt|receipts|bill|bills|billing statement|statement|statements|vat|vat number|vat id|tax id|tax number|tax|taxes|bookkeeping|accounting|accountant|accountants|expense report|expense reports|expenses|proof of payment|gst|quickbooks|xero"},
	{"annual plan", "annual|annually|yearly|per year|a year|once a year|12 months|twelve months|year upfront|upfront|up front|annual plan|annual billing|annual subscription|per annum|multi year"},
	{"discount", "discount|discounts|discounted|cheaper|lower price|save money|reduced price|deal|coupon|coupons|promo|promo code|voucher|vouchers|nonprofit discount|student discount|cheap"},
	{"pause", "pause|paused|pausing|hold|on hold|freeze|frozen|suspend|suspended|temporarily|temporary|hiatus|take a break|skip a month|seasonal|off season|low season|dormant|sabbatical"},
	{"cancel", "cancel|cancels|cancelled|canceled|cancelling|canceling|cancellation|churn|close account|close my account|delete account|delete my account|quit|leave"},
	{"refund", "refund|refunds|refunded|money back|chargeback|charged twice|double charged|overcharged|wrong amount"},
	{"currency", "currency|currencies|eur|euro|euros|gbp|pound|pounds|sterling|usd|dollar|dollars|yen|jpy|chf|cad|aud|inr|local money|local currency|exchange rate|foreign exchange|fx|multi currency"},
	{"wallet payments", "apple pay|google pay|wallet|wallets|digital wallet|one tap payment|one tap|one click payment|one click checkout|paypal|klarna|afterpay|express checkout|mobile payment|contactless|tap to pay|shop pay|card number"},

	// Shop.
	{"checkout", "checkout|check out|cart|basket|purchase|purchasing|buy|buying|bought|order|orders|ordering|shopper|shoppers|conversion|conversions|abandon|abandoned"},
	{"sign up", "sign up|signup|signing up|register|registering|registration|create an account|create account|creating an account|make an account|mandatory account|forced account|account required|without an account|without account|no account"},
	{"shipping", "shipping|ship|shipped|shipment|shipments|package|packages|parcel|parcels|delivery|deliveries|deliver|delivered|courier|arrive|arrives|arrival|eta|dispatch|dispatched|postal|post office|fedex|ups|dhl|usps|tracking number|tracking link|tracking page|track my order|track order|track my package|where is my order|where is my package|order status"},
	{"wishlist", "wishlist|wishlists|wish list|favorites|favourites|favorite|favourite|save for later|saved items|save items|bookmark|bookmarks|bookmarked|buy later|gift list|gift registry|registry|want list|later list"},
	{"reviews", "review|reviews|reviewer|rating|ratings|rate|stars|star rating|testimonial|testimonials|product feedback|customer reviews|leave feedback"},
	{"products", "product|products|item|items|catalog|catalogue|sku|skus|listing|listings"},
	{"stock", "stock|inventory|out of stock|back in stock|restock|availability|sold out|in stock"},
	{"returns", "return|returns|returning|exchange|exchanges|send back|rma"},

	// Generic verbs people use for the same request.
	{"delete", "delete|deleted|deleting|deletion|remove|removed|removing|erase|erased|wipe|wiped|lost|gone|trash|trashed"},
	{"undo", "undo|undelete|restore|restored|recover|recovered|recovery|trash can|trash bin|recycle bin|bin|by mistake|accidentally|accidental|get it back|get them back|bring it back|revert|rollback|roll back|ctrl z|cmd z|oops|mistake"},
	{"view", "view|views|see|seeing|show|shows|display|displayed|visible|visibility|look at|overview"},
}
