package email

import (
	"strings"
	"unicode"
)

// locale holds what mail clients write, in one language, around a message they forward or quote: the labels
// of the header block they copy above it, the separator line over that block, the words of a reply
// introduction ("On Monday, Jane <jane@acme.com> wrote:") and the subject prefixes. Gmail, Outlook (desktop,
// new Outlook, Outlook on the web), Apple Mail, Thunderbird, Yahoo and the others each localize some of these;
// a language's lists hold the strings of all of them. Recognition only ever looks strings up in the lookups
// built from this table (see buildLocales), so a new client or language is a new entry, not new code.
type locale struct {
	lang                              string
	from, date, to, cc, subj, replyTo []string
	// forward: separator phrases that say a message is forwarded, written between dashes
	// ("-------- Message transféré --------") or ending with a colon ("Begin forwarded message:").
	forward []string
	// original: separator phrases used above quoted replies and forwards alike ("-----Original Message-----").
	original []string
	// wrote: words of a reply introduction; introStart: words it may begin with (it may also begin with a
	// date or with the sender's name).
	wrote, introStart []string
	// fwdPrefix and replyPrefix: subject prefixes, without their colon.
	fwdPrefix, replyPrefix []string
	// behalfOf: how a client writes "X on behalf of Y" in a sender.
	behalfOf []string
	// signOff: what phones and webmail append below the text ("Sent from my iPhone"), as the start and end of
	// such a line ("Von meinem " … " gesendet"); either may be empty.
	signOff [][2]string
}

var locales = []locale{
	{lang: "en",
		from: []string{"From", "Sender"}, date: []string{"Date", "Sent"}, to: []string{"To"},
		cc: []string{"Cc", "Bcc"}, subj: []string{"Subject"}, replyTo: []string{"Reply-To", "Reply to"},
		forward:    []string{"Forwarded message", "Begin forwarded message", "Forwarded e-mail", "Forwarded email"},
		original:   []string{"Original Message", "Original e-mail", "Original email"},
		wrote:      []string{"wrote", "writes"},
		introStart: []string{"on"},
		fwdPrefix:  []string{"Fwd", "Fw"}, replyPrefix: []string{"Re"},
		behalfOf: []string{"on behalf of"},
		signOff: [][2]string{
			{"sent from my ", ""}, {"sent from outlook", ""}, {"sent from mail", ""}, {"sent from yahoo mail", ""},
			{"sent from proton mail", ""}, {"sent from protonmail", ""}, {"sent from aol", ""},
			{"sent with proton mail", ""}, {"sent with protonmail", ""}, {"sent with spark", ""},
			{"sent with blackberry", ""}, {"sent via ", ""}, {"get outlook for ", ""},
		}},
	{lang: "de",
		from: []string{"Von", "Absender"}, date: []string{"Datum", "Gesendet"}, to: []string{"An"},
		cc: []string{"Kopie", "Kopie (CC)", "Blindkopie"}, subj: []string{"Betreff"}, replyTo: []string{"Antwort an", "Antworten an"},
		forward:    []string{"Weitergeleitete Nachricht", "Anfang der weitergeleiteten Nachricht", "Weitergeleitete E-Mail"},
		original:   []string{"Ursprüngliche Nachricht", "Originalnachricht", "Ursprüngliche E-Mail"},
		wrote:      []string{"schrieb", "geschrieben"},
		introStart: []string{"am"},
		fwdPrefix:  []string{"WG", "Wtr"}, replyPrefix: []string{"AW", "Antw", "Antwort"},
		behalfOf: []string{"im Auftrag von"},
		signOff:  [][2]string{{"von meinem ", " gesendet"}, {"gesendet von meinem ", ""}, {"gesendet mit ", ""}}},
	{lang: "fr",
		from: []string{"De", "Expéditeur"}, date: []string{"Date", "Envoyé", "Envoyé le"}, to: []string{"À", "A", "Pour", "Destinataire"},
		cc: []string{"Cc", "Copie à", "Cci"}, subj: []string{"Objet", "Sujet"}, replyTo: []string{"Répondre à"},
		forward: []string{"Message transféré", "Message transmis", "Message réexpédié", "Début du message réexpédié",
			"Début du message transféré"},
		original:   []string{"Message d'origine", "Message original", "Message d’origine"},
		wrote:      []string{"a écrit"},
		introStart: []string{"le"},
		fwdPrefix:  []string{"TR", "Trans"}, replyPrefix: []string{"RE", "Réf", "Rép"},
		behalfOf: []string{"au nom de", "de la part de"},
		signOff:  [][2]string{{"envoyé de mon ", ""}, {"envoyé depuis ", ""}, {"envoyé à partir de ", ""}}},
	{lang: "es",
		from: []string{"De", "Remitente"}, date: []string{"Fecha", "Enviado", "Enviado el"}, to: []string{"Para", "A"},
		cc: []string{"CC", "CCO"}, subj: []string{"Asunto"}, replyTo: []string{"Responder a"},
		forward:    []string{"Mensaje reenviado", "Inicio del mensaje reenviado", "Correo reenviado"},
		original:   []string{"Mensaje original"},
		wrote:      []string{"escribió"},
		introStart: []string{"el"},
		fwdPrefix:  []string{"RV", "Reenv"}, replyPrefix: []string{"RE", "Rpta"},
		behalfOf: []string{"en nombre de"},
		signOff:  [][2]string{{"enviado desde mi ", ""}, {"enviado desde ", ""}}},
	{lang: "it",
		from: []string{"Da", "Mittente"}, date: []string{"Data", "Inviato", "Inviato il"}, to: []string{"A", "Destinatario"},
		cc: []string{"Cc", "Ccn"}, subj: []string{"Oggetto"}, replyTo: []string{"Rispondi a"},
		forward:    []string{"Messaggio inoltrato", "Inizio messaggio inoltrato", "Email inoltrata"},
		original:   []string{"Messaggio originale"},
		wrote:      []string{"ha scritto", "scrisse"},
		introStart: []string{"il", "il giorno"},
		fwdPrefix:  []string{"I", "Inoltro"}, replyPrefix: []string{"R", "Rif", "Risp"},
		behalfOf: []string{"per conto di"},
		signOff:  [][2]string{{"inviato da ", ""}, {"inviato dal mio ", ""}}},
	{lang: "pt", // pt-PT and pt-BR
		from: []string{"De", "Remetente"}, date: []string{"Data", "Enviado", "Enviada", "Enviado em", "Enviada em"},
		to: []string{"Para"}, cc: []string{"Cc", "Cco"}, subj: []string{"Assunto"}, replyTo: []string{"Responder A", "Responder para"},
		forward: []string{"Mensagem encaminhada", "Mensagem reencaminhada", "Início da mensagem encaminhada",
			"Início da mensagem reencaminhada", "E-mail encaminhado"},
		original:   []string{"Mensagem original"},
		wrote:      []string{"escreveu"},
		introStart: []string{"em", "no dia"},
		fwdPrefix:  []string{"ENC", "Encaminhar", "Reenc"}, replyPrefix: []string{"RES", "Resp"},
		behalfOf: []string{"em nome de"},
		signOff:  [][2]string{{"enviado do meu ", ""}, {"enviado do ", ""}, {"enviado a partir do ", ""}}},
	{lang: "nl",
		from: []string{"Van", "Afzender"}, date: []string{"Datum", "Verzonden", "Verstuurd"}, to: []string{"Aan"},
		cc: []string{"CC", "Kopie", "BCC"}, subj: []string{"Onderwerp"}, replyTo: []string{"Antwoord aan", "Beantwoorden"},
		forward:    []string{"Doorgestuurd bericht", "Begin doorgestuurd bericht", "Doorgestuurde e-mail"},
		original:   []string{"Oorspronkelijk bericht", "Origineel bericht", "Oorspronkelijke e-mail"},
		wrote:      []string{"schreef", "geschreven"},
		introStart: []string{"op"},
		fwdPrefix:  []string{"Doorst", "Dr"}, replyPrefix: []string{"Antw"},
		behalfOf: []string{"namens"},
		signOff: [][2]string{
			{"verzonden vanaf ", ""}, {"verzonden met ", ""}, {"verstuurd vanaf ", ""}, {"verzonden vanuit ", ""},
		}},
	{lang: "sv",
		from: []string{"Från", "Avsändare"}, date: []string{"Datum", "Skickat", "Skickades"}, to: []string{"Till", "Mottagare"},
		cc: []string{"Kopia", "Hemlig kopia"}, subj: []string{"Ämne"}, replyTo: []string{"Svara till", "Svar till"},
		forward:    []string{"Vidarebefordrat meddelande", "Vidarebefordrat mejl", "Vidarebefordrat brev"},
		original:   []string{"Originalmeddelande", "Ursprungligt meddelande"},
		wrote:      []string{"skrev"},
		introStart: []string{"den"},
		fwdPrefix:  []string{"VB", "Vb"}, replyPrefix: []string{"SV"},
		behalfOf: []string{"å vägnar av"},
		signOff:  [][2]string{{"skickat från ", ""}}},
	{lang: "da",
		from: []string{"Fra", "Afsender"}, date: []string{"Dato", "Sendt"}, to: []string{"Til", "Modtager"},
		cc: []string{"Cc", "Bcc"}, subj: []string{"Emne"}, replyTo: []string{"Svar til"},
		forward:    []string{"Videresendt meddelelse", "Start på videresendt besked", "Videresendt besked"},
		original:   []string{"Oprindelig meddelelse", "Original meddelelse"},
		wrote:      []string{"skrev"},
		introStart: []string{"den", "d."},
		fwdPrefix:  []string{"VS", "Videresend"}, replyPrefix: []string{"SV"},
		behalfOf: []string{"på vegne af"},
		signOff:  [][2]string{{"sendt fra min ", ""}, {"sendt fra ", ""}}},
	{lang: "no",
		from: []string{"Fra", "Avsender"}, date: []string{"Dato", "Sendt"}, to: []string{"Til", "Mottaker"},
		cc: []string{"Kopi", "Blindkopi"}, subj: []string{"Emne"}, replyTo: []string{"Svar til"},
		forward:    []string{"Videresendt melding", "Videresendt e-post", "Videresendt e-postmelding"},
		original:   []string{"Opprinnelig melding", "Originalmelding", "Original melding"},
		wrote:      []string{"skrev", "skrev følgende"},
		introStart: []string{"den"},
		fwdPrefix:  []string{"VS", "Videresend", "Vidaresend"}, replyPrefix: []string{"SV"},
		behalfOf: []string{"på vegne av"},
		signOff:  [][2]string{{"sendt fra min ", ""}, {"sendt fra ", ""}}},
	{lang: "fi",
		from: []string{"Lähettäjä"}, date: []string{"Päivämäärä", "Päiväys", "Lähetetty", "Aika"}, to: []string{"Vastaanottaja"},
		cc: []string{"Kopio", "Piilokopio"}, subj: []string{"Aihe"}, replyTo: []string{"Vastaus", "Vastausosoite"},
		forward: []string{"Välitetty viesti", "Välitetty viesti alkaa", "Edelleenlähetetty viesti",
			"Välitetty viesti / Fwd.Msg"},
		original:  []string{"Alkuperäinen viesti"},
		wrote:     []string{"kirjoitti"},
		fwdPrefix: []string{"VL", "VB"}, replyPrefix: []string{"VS", "Vast"},
		behalfOf: []string{"puolesta"},
		signOff: [][2]string{
			{"lähetetty iphone", ""}, {"lähetetty android", ""}, {"lähetetty laitteesta", ""},
			{"lähetetty outlook", ""}, {"lähetetty mobiili", ""},
		}},
	{lang: "pl",
		from: []string{"Od", "Nadawca"}, date: []string{"Data", "Wysłano", "Wysłane"}, to: []string{"Do", "Adresat"},
		cc: []string{"DW", "Kopia", "UDW"}, subj: []string{"Temat"}, replyTo: []string{"Odpowiedź-do", "Odpowiedz do"},
		forward: []string{"Przekazana wiadomość", "Wiadomość przekazana", "Początek przekazywanej wiadomości",
			"Treść przekazanej wiadomości", "Przekazywana wiadomość"},
		original:   []string{"Wiadomość oryginalna", "Oryginalna wiadomość"},
		wrote:      []string{"napisał", "napisała", "pisze"},
		introStart: []string{"w dniu", "dnia"},
		fwdPrefix:  []string{"PD", "Fwd"}, replyPrefix: []string{"Odp"},
		behalfOf: []string{"w imieniu"},
		signOff:  [][2]string{{"wysłane z ", ""}, {"wysłano z ", ""}}},
	{lang: "cs",
		from: []string{"Od", "Odesílatel"}, date: []string{"Datum", "Odesláno"}, to: []string{"Komu", "Adresát"},
		cc: []string{"Kopie", "Skrytá kopie"}, subj: []string{"Předmět"}, replyTo: []string{"Odpověď na", "Odpovědět na"},
		forward:    []string{"Přeposlaná zpráva", "Začátek přeposílané zprávy", "Přeposílaná zpráva"},
		original:   []string{"Původní zpráva", "Původní e-mail"},
		wrote:      []string{"napsal", "napsala"},
		introStart: []string{"dne"},
		fwdPrefix:  []string{"PŘ", "Přep"}, replyPrefix: []string{"Odp"},
		behalfOf: []string{"jménem", "v zastoupení"},
		signOff:  [][2]string{{"odesláno z ", ""}, {"odesláno ze ", ""}}},
	{lang: "sk",
		from: []string{"Od", "Odosielateľ"}, date: []string{"Dátum", "Odoslané"}, to: []string{"Komu", "Pre", "Adresát"},
		cc: []string{"Kópia", "Skrytá kópia"}, subj: []string{"Predmet"}, replyTo: []string{"Odpovedať-Pre", "Odpovedať na"},
		forward: []string{"Preposlaná správa", "Začiatok preposlanej správy", "Preposlaná správa --- Forwarded Message",
			"Preposielaná správa"},
		original:  []string{"Pôvodná správa"},
		wrote:     []string{"napísal", "napísala"},
		fwdPrefix: []string{"PS", "Presm"}, replyPrefix: []string{"Odp"},
		behalfOf: []string{"v mene"},
		signOff:  [][2]string{{"odoslané z ", ""}, {"odoslané zo ", ""}}},
	{lang: "hu",
		from: []string{"Feladó"}, date: []string{"Dátum", "Elküldve", "Küldve", "Időpont"}, to: []string{"Címzett"},
		cc: []string{"Másolat", "Másolatot kap", "Titkos másolat"}, subj: []string{"Tárgy"}, replyTo: []string{"Válaszcím"},
		forward:   []string{"Továbbított levél", "Továbbított üzenet", "Továbbított levél kezdete"},
		original:  []string{"Eredeti üzenet", "Eredeti levél"},
		wrote:     []string{"írta", "ezt írta"},
		fwdPrefix: []string{"Továbbítás", "Tov"}, replyPrefix: []string{"Vá", "Válasz"},
		behalfOf: []string{"nevében"},
		signOff: [][2]string{
			{"az ", "ról küldve"}, {"az ", "ről küldve"}, {"a(z) ", " küldve"}, {"iphone-ról küldve", ""},
			{"küldve az ", ""},
		}},
	{lang: "ro",
		from: []string{"De la", "Expeditor", "Expeditorul"}, date: []string{"Dată", "Data", "Trimis", "Trimis la"},
		to: []string{"Către", "Catre", "Destinatarul", "Destinatar"}, cc: []string{"Cc", "Bcc"},
		subj: []string{"Subiect", "Subiectul"}, replyTo: []string{"Răspuns către", "Răspunde la"},
		forward: []string{"Mesaj redirecționat", "Mesaj redirecţionat", "Începe mesajul redirecționat",
			"Începe mesajul redirecţionat", "Mesaj transmis", "Mesaj redirijat"},
		original:   []string{"Mesaj original", "Mesajul original"},
		wrote:      []string{"a scris"},
		introStart: []string{"în", "pe"},
		fwdPrefix:  []string{"Redir.", "Redir", "Fwd"}, replyPrefix: []string{"Răsp", "Rasp"},
		behalfOf: []string{"în numele"},
		signOff:  [][2]string{{"trimis de pe ", ""}, {"trimis din ", ""}, {"trimis de la ", ""}}},
	{lang: "hr",
		from: []string{"Šalje", "Od", "Pošiljatelj"}, date: []string{"Datum", "Poslano"}, to: []string{"Prima", "Za", "Primatelj"},
		cc: []string{"Kopija", "Cc"}, subj: []string{"Predmet", "Naslov"}, replyTo: []string{"Odgovori na"},
		forward:   []string{"Proslijeđena poruka", "Započni proslijeđenu poruku", "Prosljeđena poruka"},
		original:  []string{"Izvorna poruka", "Originalna poruka"},
		wrote:     []string{"napisao", "napisala", "je napisao", "je napisala"},
		fwdPrefix: []string{"Proslijedi", "Prosl"}, replyPrefix: []string{"Odg"},
		behalfOf: []string{"u ime"},
		signOff: [][2]string{
			{"poslano s mog ", ""}, {"poslano sa mog ", ""}, {"poslano s ", ""}, {"poslano sa ", ""},
		}},
	{lang: "sl",
		from: []string{"Od", "Pošiljatelj"}, date: []string{"Datum", "Poslano"}, to: []string{"Za", "Prejemnik"},
		cc: []string{"Kp", "Kopija", "Cc"}, subj: []string{"Zadeva"}, replyTo: []string{"Odgovor za"},
		forward:    []string{"Posredovano sporočilo", "Začetek posredovanega sporočila"},
		original:   []string{"Izvirno sporočilo", "Prvotno sporočilo"},
		wrote:      []string{"napisal", "napisala", "je napisal", "je napisala", "pisal"},
		introStart: []string{"v"},
		fwdPrefix:  []string{"Posr"}, replyPrefix: []string{"Odg"},
		behalfOf: []string{"v imenu"},
		signOff:  [][2]string{{"poslano iz ", ""}, {"poslano z mojega ", ""}}},
	{lang: "tr",
		from: []string{"Kimden", "Gönderen"}, date: []string{"Tarih", "Gönderildi", "Gönderilen", "Gönderilme"},
		to: []string{"Kime", "Alıcı"}, cc: []string{"Bilgi", "Cc", "Gizli"}, subj: []string{"Konu"}, replyTo: []string{"Yanıt Adresi"},
		forward: []string{"İletilen ileti", "İletilmiş Mesaj", "İletilmiş ileti", "İleti başlangıcı", "Yönlendirilmiş ileti",
			"Yönlendirilen ileti", "İletilen mesaj"},
		original:  []string{"Özgün ileti", "Orijinal mesaj", "Orijinal ileti"},
		wrote:     []string{"yazdı"},
		fwdPrefix: []string{"İLT", "ILT", "İlt"}, replyPrefix: []string{"YNT", "Ynt", "Yan"},
		behalfOf: []string{"adına"},
		signOff: [][2]string{
			{"iphone", "gönderildi"}, {"ipad", "gönderildi"}, {"android", "gönderildi"}, {"outlook", "gönderildi"},
		}},
	{lang: "ru",
		from: []string{"От", "Отправитель", "От кого"}, date: []string{"Дата", "Отправлено", "Отправлено в"}, to: []string{"Кому"},
		cc: []string{"Копия", "Скрытая копия"}, subj: []string{"Тема"}, replyTo: []string{"Ответ-Кому", "Ответить"},
		forward: []string{"Пересылаемое сообщение", "Перенаправленное сообщение", "Начало переадресованного сообщения",
			"Пересланное сообщение"},
		original:  []string{"Исходное сообщение", "Оригинальное сообщение", "Исходное письмо"},
		wrote:     []string{"написал", "написала", "пишет", "писал"},
		fwdPrefix: []string{"Пересл", "Перес"}, replyPrefix: []string{"Отв", "Ответ"},
		behalfOf: []string{"от имени"},
		signOff:  [][2]string{{"отправлено с ", ""}, {"отправлено из ", ""}, {"послано с ", ""}}},
	{lang: "uk",
		from: []string{"Від", "Від кого", "Відправник"}, date: []string{"Дата", "Надіслано", "Відправлено"}, to: []string{"Кому"},
		cc: []string{"Копія", "Прихована копія"}, subj: []string{"Тема"}, replyTo: []string{"Кому відповісти"},
		forward: []string{"Переслане повідомлення", "Перенаправлене повідомлення", "Початок листа, що пересилається",
			"Пересланий лист"},
		original:  []string{"Оригінальне повідомлення", "Вихідне повідомлення", "Початкове повідомлення"},
		wrote:     []string{"написав", "написала", "пише"},
		fwdPrefix: []string{"Перес", "Пересл"}, replyPrefix: []string{"Відп", "Відповідь"},
		behalfOf: []string{"від імені"},
		signOff:  [][2]string{{"надіслано з ", ""}, {"відправлено з ", ""}, {"надіслано із ", ""}}},
	{lang: "et",
		from: []string{"Saatja", "Kellelt"}, date: []string{"Kuupäev", "Saadetud", "Saatmisaeg"}, to: []string{"Adressaat", "Saaja", "Kellele"},
		cc: []string{"Koopia", "Pimekoopia"}, subj: []string{"Teema"}, replyTo: []string{"Vastus aadressile"},
		forward:   []string{"Edastatud kiri", "Edasisaadetud kiri", "Edastatud sõnum", "Edasisaadetud sõnumi algus"},
		original:  []string{"Algne sõnum", "Algsõnum", "Algne kiri"},
		wrote:     []string{"kirjutas"},
		fwdPrefix: []string{"Edasta", "Edasi"}, replyPrefix: []string{"Vs", "Vast"},
		behalfOf: []string{"nimel"},
		signOff: [][2]string{
			{"saadetud minu ", ""}, {"saadetud iphone", ""}, {"saadetud seadmest", ""}, {"saadetud androidi", ""},
		}},
	{lang: "lv",
		from: []string{"No", "Sūtītājs"}, date: []string{"Datums", "Nosūtīts", "Nosūtīšanas datums"}, to: []string{"Kam", "Adresāts"},
		cc: []string{"Kopija", "Kop."}, subj: []string{"Tēma", "Temats"}, replyTo: []string{"Atbildēt uz"},
		forward:   []string{"Pārsūtīta ziņa", "Pārsūtītā ziņa", "Pārsūtītās ziņas sākums", "Pārsūtīts ziņojums"},
		original:  []string{"Sākotnējā ziņa", "Oriģinālā ziņa", "Sākotnējais ziņojums"},
		wrote:     []string{"rakstīja"},
		fwdPrefix: []string{"Pārs", "Pārsūt"}, replyPrefix: []string{"Atb", "Atbilde"},
		behalfOf: []string{"vārdā"},
		signOff:  [][2]string{{"nosūtīts no ", ""}, {"sūtīts no ", ""}}},
	{lang: "lt",
		from: []string{"Nuo", "Siuntėjas"}, date: []string{"Data", "Išsiųsta", "Siųsta"}, to: []string{"Kam", "Gavėjas"},
		cc: []string{"Kopija", "Nematoma kopija"}, subj: []string{"Tema"}, replyTo: []string{"Atsakyti kam"},
		forward:   []string{"Persiųstas laiškas", "Persiunčiamas laiškas", "Persiųsto laiško pradžia", "Persiųstas pranešimas"},
		original:  []string{"Originalus laiškas", "Pradinis laiškas", "Originalus pranešimas"},
		wrote:     []string{"rašė", "parašė"},
		fwdPrefix: []string{"Pers", "PRSD"}, replyPrefix: []string{"Ats", "ATS"},
		behalfOf: []string{"vardu"},
		signOff:  [][2]string{{"išsiųsta iš ", ""}, {"siųsta iš ", ""}}},
	{lang: "el",
		from: []string{"Από", "Αποστολέας"}, date: []string{"Ημερομηνία", "Στάλθηκε", "Εστάλη"}, to: []string{"Προς", "Παραλήπτης"},
		cc: []string{"Κοιν.", "Κοιν", "Κοινοποίηση"}, subj: []string{"Θέμα"}, replyTo: []string{"Απάντηση σε"},
		forward:    []string{"Προωθημένο μήνυμα", "Αρχή προωθημένου μηνύματος", "Προωθημένο email"},
		original:   []string{"Αρχικό μήνυμα"},
		wrote:      []string{"έγραψε"},
		introStart: []string{"στις"},
		fwdPrefix:  []string{"ΠΡΘ", "Πρθ", "ΠΡΟΩΘ"}, replyPrefix: []string{"ΑΠ", "Απ", "ΣΧΕΤ"},
		behalfOf: []string{"εκ μέρους"},
		signOff:  [][2]string{{"εστάλη από ", ""}, {"στάλθηκε από ", ""}}},
	{lang: "ja",
		from: []string{"差出人", "送信者", "送信元", "From"}, date: []string{"送信日時", "日付", "日時", "送信日"},
		to: []string{"宛先", "送信先", "受信者"}, cc: []string{"CC", "Cc", "BCC"}, subj: []string{"件名", "題名"}, replyTo: []string{"返信先"},
		forward: []string{"転送されたメッセージ", "メッセージを転送", "転送メッセージ", "転送されたメッセージの始まり",
			"以下転送メッセージ"},
		original:  []string{"元のメッセージ", "オリジナル メッセージ", "元メッセージ"},
		wrote:     []string{"書きました", "のメッセージ", "のメール", "さんは書きました"},
		fwdPrefix: []string{"転送", "Fw"}, replyPrefix: []string{"返信"},
		behalfOf: []string{"の代理"},
		signOff:  [][2]string{{"iphone", "から送信"}, {"ipad", "から送信"}, {"android", "から送信"}, {"", "から送信"}}},
	{lang: "zh-Hans",
		from: []string{"发件人", "发信人", "寄件人"}, date: []string{"发送时间", "日期", "时间", "发件时间"},
		to: []string{"收件人"}, cc: []string{"抄送", "抄送人", "密送"}, subj: []string{"主题", "主旨"}, replyTo: []string{"回复至", "答复至"},
		forward:   []string{"转发的邮件", "转发邮件", "转发邮件信息", "以下是转发的邮件", "下面是被转发的邮件", "转发的消息"},
		original:  []string{"原始邮件", "原邮件", "原始消息"},
		wrote:     []string{"写道"},
		fwdPrefix: []string{"转发", "转"}, replyPrefix: []string{"回复", "答复", "回"},
		behalfOf: []string{"代表"},
		signOff:  [][2]string{{"发自我的", ""}, {"从我的", "发送"}, {"来自我的", ""}}},
	{lang: "zh-Hant",
		from: []string{"寄件者", "寄件人", "發件人"}, date: []string{"寄件日期", "日期", "傳送時間", "時間"},
		to: []string{"收件者", "收件人"}, cc: []string{"副本", "抄送", "密件副本"}, subj: []string{"主旨", "主題"}, replyTo: []string{"回覆至"},
		forward:   []string{"轉寄的郵件", "轉寄郵件", "以下為轉寄的郵件", "轉寄的訊息", "轉發的郵件"},
		original:  []string{"原始郵件", "原始訊息", "原郵件"},
		wrote:     []string{"寫道"},
		fwdPrefix: []string{"轉寄", "轉發", "轉送"}, replyPrefix: []string{"回覆", "答覆"},
		behalfOf: []string{"代表"},
		signOff:  [][2]string{{"從我的", "傳送"}, {"寄自我的", ""}, {"傳送自", ""}}},
	{lang: "ko",
		from: []string{"보낸 사람", "보낸사람", "발신자", "보낸이"}, date: []string{"보낸 날짜", "날짜", "보낸날짜", "발송일"},
		to: []string{"받는 사람", "받는사람", "수신자", "받는이"}, cc: []string{"참조", "숨은 참조"}, subj: []string{"제목"},
		replyTo:   []string{"회신 주소", "답장 받을 주소"},
		forward:   []string{"전달된 메일", "전달된 메시지", "전달된 메시지 시작", "전달 메시지"},
		original:  []string{"원본 메시지", "원래 메시지", "원본 메일"},
		wrote:     []string{"작성", "님이 작성", "작성했습니다"},
		fwdPrefix: []string{"전달", "FW"}, replyPrefix: []string{"회신", "답장"},
		behalfOf: []string{"대신"},
		signOff:  [][2]string{{"나의 ", "에서 보냄"}, {"iphone", "에서 보냄"}, {"android", "에서 보냄"}, {"", "에서 보냄"}}},
}

// separatorKind is what a separator line above a header block says.
type separatorKind uint8

const (
	notSeparator separatorKind = iota
	sepForward                 // a known forward phrase
	sepOriginal                // a known phrase of quoted history ("Original Message"), or a bare rule
	sepUnknown                 // dashes around a phrase no entry knows
)

// Lookups built from locales: folded text to what it means.
var (
	tables          = buildLocales()
	headerRole      = tables.headerRole
	separatorPhrase = tables.separatorPhrase
	introWords      = tables.introWords // folded "wrote" words of every language
	introStarts     = tables.introStarts
	forwardTokens   = tables.forwardTokens
	replyTokens     = tables.replyTokens
	behalfPhrases   = tables.behalfPhrases // folded, with a space on each side where the script uses spaces
	signOffs        = tables.signOffs      // lower case
)

type localeTables struct {
	headerRole                                            map[string]role
	separatorPhrase                                       map[string]separatorKind
	introStarts                                           map[string]bool
	introWords, forwardTokens, replyTokens, behalfPhrases []string
	signOffs                                              [][2]string
}

func buildLocales() localeTables {
	t := localeTables{headerRole: map[string]role{}, separatorPhrase: map[string]separatorKind{}, introStarts: map[string]bool{}}
	for _, l := range locales {
		for _, f := range []struct {
			names []string
			r     role
		}{{l.from, roleFrom}, {l.date, roleDate}, {l.to, roleTo}, {l.cc, roleCC}, {l.subj, roleSubject}, {l.replyTo, roleCC}} {
			for _, n := range f.names {
				k := foldText(n)
				if old, ok := t.headerRole[k]; ok && old != f.r {
					panic("email: label " + n + " has two roles")
				}
				t.headerRole[k] = f.r
			}
		}
		for _, p := range l.forward {
			t.separatorPhrase[foldText(p)] = sepForward
		}
		for _, p := range l.original {
			if t.separatorPhrase[foldText(p)] != sepForward {
				t.separatorPhrase[foldText(p)] = sepOriginal
			}
		}
		for _, w := range l.wrote {
			t.introWords = appendNew(t.introWords, foldText(w))
		}
		for _, w := range l.introStart {
			t.introStarts[foldText(w)] = true
		}
		for _, p := range l.fwdPrefix {
			t.forwardTokens = appendNew(t.forwardTokens, p)
		}
		for _, so := range l.signOff {
			t.signOffs = append(t.signOffs, [2]string{strings.ToLower(so[0]), strings.ToLower(so[1])})
		}
		for _, b := range l.behalfOf {
			b = foldText(b)
			if isSpacedScript(b) {
				b = " " + b + " "
			}
			t.behalfPhrases = appendNew(t.behalfPhrases, b)
		}
	}
	// A subject prefix of one language can be another's: the forward meaning wins, as a forward's header
	// block is then looked for, and a reply's quoted block is still recognised as history.
	for _, l := range locales {
		for _, p := range l.replyPrefix {
			if !hasFold(t.forwardTokens, p) {
				t.replyTokens = appendNew(t.replyTokens, p)
			}
		}
	}
	return t
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// isSpacedScript reports whether s is written in a script that separates words with spaces.
func isSpacedScript(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			return false
		}
	}
	return true
}

// foldText is the key under which the table's strings are looked up: lower case, white space collapsed.
// Text without a run of white space is only lowered, which allocates nothing for lower-case ASCII.
func foldText(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\t' || c == '\n' || c == ' ' && (i+1 == len(s) || s[i+1] == ' ' || i == 0) {
			return strings.ToLower(collapseSpace(s))
		}
	}
	return strings.ToLower(s)
}
