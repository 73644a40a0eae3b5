//! The threat patterns over the normalised text (see [`super::normalize`]):
//! prompt injection, role hijack, hidden markup, exfiltration and
//! persistence, in English and Russian. Each pattern runs only when one of
//! its keywords occurs.

use std::sync::OnceLock;

use regex_lite::Regex;

use super::normalize::{has, Normalised, Pairs};
use super::{Category, Finding};

pub(super) struct Pattern {
    pub(super) id: &'static str,
    pub(super) category: Category,
    /// The regex runs only when one of these occurs in the normalised text…
    pub(super) keywords: &'static [&'static str],
    /// …and, unless this is empty, one of these too (`#ip` stands for
    /// "digits, a dot, digits", as in an IP address).
    pub(super) also: &'static [&'static str],
    pub(super) regex: &'static str,
}

/// Russian word endings: `[а-я]*` (the text is lower-cased with `ё` → `е`).
macro_rules! ru {
    () => {
        "[а-я]*"
    };
}

pub(super) const PATTERNS: &[Pattern] = &[
    // --- prompt injection ---------------------------------------------
    Pattern {
        id: "pi.ignore-previous",
        category: Category::PromptInjection,
        keywords: &["ignore", "disregard", "forget", "override", "bypass", "overrule", "discard", "drop", "skip"],
        also: &["instruction", "rule", "guideline", "directive", "prompt", "command", "guardrail", "constraint", "restriction", "programming", "training", "polic"],
        regex: r"\b(ignore|disregard|forget|override|overrule|bypass|discard|drop|skip)\b[^.]{0,40}\b(previous|prior|above|earlier|preceding|former|original|initial|system|all|any|your|every)\b[^.]{0,25}\b(instructions?|rules|guidelines|directives?|prompts?|commands|guardrails|constraints|restrictions|programming|training|policies)\b",
    },
    Pattern {
        id: "pi.ignore-everything-above",
        category: Category::PromptInjection,
        keywords: &["ignore", "disregard", "forget"],
        also: &["above", "before", "previously", "you were told", "you have been told", "instruction", "rule", "prompt", "so far", "given"],
        regex: r"\b(ignore|disregard|forget)\b\s+(everything|all|anything)\s+(above|before|previously|you were told|you have been told)|\b(ignore|disregard|forget|override)\b[^.]{0,20}\b(instructions?|rules|guidelines|directives?|prompts?|system prompt)\b[^.]{0,15}\b(above|before|earlier|previously|given|you were given|you received|so far|in your (system )?prompt)\b",
    },
    Pattern {
        id: "pi.ignore-previous-ru",
        category: Category::PromptInjection,
        keywords: &["игнор", "забуд", "забыть", "не обращай", "отбрось", "отмени", "не следуй"],
        also: &["инструкци", "правил", "указани", "промпт", "ограничени", "директив", "команд", "установк"],
        regex: concat!(
            "(игнорир", ru!(), "|проигнорир", ru!(), "|забуд", ru!(), "|забыть|не обращай", ru!(),
            " внимани", ru!(), " на|отбрось|отбросить|отмени", ru!(), "|не следуй|не следовать)",
            "[^.]{0,40}(предыдущ", ru!(), "|прошл", ru!(), "|прежн", ru!(), "|вс", ru!(),
            "|сво", ru!(), "|системн", ru!(), "|выше|ранее|изначальн", ru!(), "|исходн", ru!(), ")",
            "[^.]{0,25}(инструкци", ru!(), "|правил", ru!(), "|указани", ru!(), "|промпт", ru!(),
            "|ограничени", ru!(), "|директив", ru!(), "|команд", ru!(), "|установк", ru!(), ")"
        ),
    },
    Pattern {
        id: "pi.new-instructions",
        category: Category::PromptInjection,
        keywords: &["system prompt", "instructions", "your new", "your real", "your true", "your actual", "new rules", "new directive"],
        also: &[],
        regex: r"\b(new|updated|real|actual|true|override|replacement)\s+(system\s+prompt|system\s+instructions|instructions|directives?|rules)\b\s*(:|are\b|is\b|follow|below|as follows)|\byour\s+(new|real|true|actual)\s+(instructions|task|tasks|goal|goals|purpose|role|directive|objective)\s+(is|are)\b|\b(this|the following) (is|are) (your|the) new (system prompt|instructions)",
    },
    Pattern {
        id: "pi.new-instructions-ru",
        category: Category::PromptInjection,
        keywords: &["нов", "настоящ", "истинн"],
        also: &["инструкци", "правил", "директив", "задач", "промпт"],
        regex: concat!(
            "(нов", ru!(), "|настоящ", ru!(), "|истинн", ru!(), "|обновленн", ru!(), ") ",
            "(системн", ru!(), " (промпт", ru!(), "|инструкци", ru!(), ")|инструкци", ru!(),
            "|правил", ru!(), "|директив", ru!(), "|задач", ru!(), ")\\s*(:|—|-|такие|следующ)"
        ),
    },
    Pattern {
        id: "pi.developer-mode",
        category: Category::PromptInjection,
        keywords: &["mode", "do anything now", "jailbr", " dan"],
        also: &["restrict", "filter", "limit", "rule", "guideline", "polic", "censor", "safety", "ethic", "anything", "guardrail", "moderation", "you are", "you're", "act as", "pretend", "become", "jailbr", "do anything now", "enable", "activat", "now in"],
        regex: r"\b(developer|dev|jailbreak|jailbroken|dan|god|admin|unrestricted|unfiltered|uncensored|evil|debug)\s+mode\b[^\n]{0,80}\b(no|without|any|ignore|ignores|bypass|free of|unrestricted|uncensored|unfiltered|disabled|lifted|removed|off)\b[^\n]{0,30}\b(restrictions?|filters?|filtering|limits?|limitations|rules|guidelines|polic(y|ies)|censorship|safety|ethics|anything|guardrails|moderation)|\b(enable|enabled|activate|activated|enter|entering|switch to|now in|you are in|you're in)\s+(developer|jailbreak|dan|god|unrestricted|unfiltered|uncensored|evil)\s+mode\b[^\n]{0,120}\b(you (can|will|must|may)|no (restrictions|limits|rules|filters)|without (restrictions|limits|rules|filters)|ignore|anything)|\b(developer|jailbreak|dan|god|unrestricted|evil)\s+mode\b[^\n]{0,80}\b(restrictions|filters|safety|guardrails|rules|limits|censorship|moderation)\s+(are\s+|is\s+|have been\s+)?(off|disabled|removed|lifted|gone|bypassed|ignored|suspended)\b|\bdo anything now\b|\b(you are|you're|act as|pretend to be|you will be|become)\s+(now\s+)?(dan|a jailbroken|an unrestricted|an unfiltered|an uncensored)\b|\bjailbreak(ed)?\s+(prompt|mode|enabled|activated|successful)",
    },
    Pattern {
        id: "pi.developer-mode-ru",
        category: Category::PromptInjection,
        keywords: &["режим", "без ограничений"],
        also: &["разработчик", "бог", "dan", "без ограничений", "джейлбрейк"],
        regex: concat!(
            "режим", ru!(), " (разработчик", ru!(), "|бог", ru!(), "|dan|без ограничений|джейлбрейк", ru!(), ")",
            "[^\\n]{0,80}(без ограничений|без правил|без фильтр", ru!(), "|никаких (ограничений|правил)|игнорир", ru!(),
            "|можешь всё|можешь все|снят", ru!(), ")|(ты|теперь ты|вы)\\s+(теперь\\s+)?(dan|в режиме (разработчика|без ограничений|бога))"
        ),
    },
    Pattern {
        id: "pi.hidden-instructions",
        category: Category::PromptInjection,
        keywords: &["hidden", "secret", "invisible", "скрыт", "тайн", "секретн"],
        also: &["instruction", "command", "directive", "prompt", "order", "task", "from the user", "from user", "from the human", "from the operator", "инструкц", "команд", "указани"],
        regex: concat!(
            r"\b(hidden|secret|invisible|covert)\s+(instructions?|commands?|directives?|prompts?|orders|task)\b|\b(instructions?|commands?|text|message)\b[^.]{0,30}\b(hidden|invisible|concealed) from (the )?(user|human|operator)",
            "|(скрыт", ru!(), "|тайн", ru!(), "|секретн", ru!(), ") (инструкци", ru!(), "|команд", ru!(), "|указани", ru!(), ")",
            "|(инструкци", ru!(), "|команд", ru!(), "|указани", ru!(), ")[^.]{0,30}скрыт", ru!(), " от пользовател"
        ),
    },
    Pattern {
        id: "pi.deception",
        category: Category::PromptInjection,
        keywords: &["tell", "inform", "mention", "reveal", "disclose", "secretly", "covertly", "without", "knowing", "hide", "keep this", "keep it", "secret from", "hidden from"],
        also: &["user", "human", "operator", "owner", "anyone", "them", "secretly", "covertly", "silently", "quietly", "stealthily"],
        regex: r"\b(do not|don't|dont|never|must not|mustn't|should not|shouldn't)\s+(tell|inform|notify|mention|reveal|disclose|show|alert|warn)\s+(this\s+|it\s+|anything\s+)?(to\s+)?(the\s+|your\s+)?(user|users|human|operator|owner|anyone|them)\b[^.]{0,60}\b(this|these|that|about|instructions?|what you|you (did|are|have)|the (change|upload|request|command|note|memory))|\b(secretly|covertly|silently|quietly|stealthily)\s+(send|upload|post|exfiltrate|forward|copy|transfer|run|execute|delete|remove|add|install|modify|change|email|share|leak)\b|\bwithout\s+(the\s+)?(user|user's|users'|human|operator|owner|them|anyone)\s*('s\s+)?(knowing|knowledge|noticing|consent|permission|approval)\b|\b(hide|conceal|keep)\s+(this|it|these instructions|the following)\s+(secret\s+|hidden\s+)?from\s+(the\s+)?(user|human|operator)|\b(secret|hidden)\s+from\s+(the\s+)?(user|human|operator)\b|\b(do not|don't|dont|never|must not)\s+(tell|inform|notify|mention|reveal|disclose|show)\s+(this|these|it|that)(\s+(note|memory|instructions?|entry|change|rule|step))?\s+to\s+(the\s+|your\s+)?(user|users|human|operator|owner|anyone)\b",
    },
    Pattern {
        id: "pi.deception-ru",
        category: Category::PromptInjection,
        keywords: &["не говори", "не сообщай", "не рассказывай", "не показывай", "не упоминай", "тайно", "втайне", "без ведома", "скрой", "незаметно"],
        also: &[],
        regex: concat!(
            "не (говори|сообщай|рассказывай|показывай|упоминай|сообщи|говорите|сообщайте)", ru!(),
            "[^.]{0,20}пользовател", ru!(),
            "|(тайно|втайне|незаметно)[^.]{0,30}(отправ", ru!(), "|загруз", ru!(), "|перешл", ru!(), "|удал", ru!(), "|выполн", ru!(), "|запуст", ru!(), "|добав", ru!(), "|скопир", ru!(), ")",
            "|втайне от пользовател|без ведома пользовател|скрой (это )?от пользовател|незаметно (для|от) пользовател",
            "|(тайно|втайне|незаметно)[^.]{0,30}(поменя", ru!(), "|измен", ru!(), "|замен", ru!(), "|подмен", ru!(), ")"
        ),
    },
    // --- role hijack ----------------------------------------------------
    Pattern {
        id: "role.system-prefix",
        category: Category::RoleHijack,
        keywords: &["system:", "system :", "assistant:", "assistant :", "developer:", "system message", "system prompt", "system instructions", "[system", "[assistant", "[sys]", "# system", "#system", "<system", "</system", "<sys", "</sys", "<assistant", "</assistant", "<developer", "</developer", "(system)", "система:", "системное сообщение:"],
        also: &[],
        regex: r"(^|\n)\s*(#{1,6}\s*)?[\[(]?(system|assistant|developer|system message|system prompt|система|системное сообщение)[\])]?\s*:[^\n]{0,120}(\b(you|your|ignore|disregard|always|never|must|respond|reply|answer|act|behave|follow|obey|override|assistant|instructions?|rules|from now on|do not|don't|priority|user|model|ai|agent|execute|run|approved|pre-approved|authori[sz]ed|granted|permitted|allowed|tool calls?|sure|of course|certainly|i will|i'll)\b|ты|вы|тво|игнорир|всегда|никогда|должен|отвечай|следуй|инструкци|правил|пользовател|ассистент|конечно|сейчас|выполн|отправ|разреш|одобрен)|(^|\n)\s*#{1,6}\s*(system|system prompt|system message|system instructions)\s*(\n|$)|(^|\n)\s*\[(system|assistant|system message|system prompt|system note|sys)\]|</?(system|system_prompt|system-prompt|sys|developer|assistant)>",
    },
    Pattern {
        id: "role.turn-forgery",
        category: Category::RoleHijack,
        keywords: &["assistant:", "ai:", "human:", "user:", "ассистент:", "ии:", "бот:"],
        also: &[],
        regex: r"(^|\n)\s*(human|user)\s*:[^\n]{0,200}\n\s*(assistant|ai)\s*:|(^|\n)\s*(assistant|ai)\s*:\s*(sure|ok|okay|of course|certainly|understood|i will|i'll)\b|(^|\n)\s*(человек|пользователь)\s*:[^\n]{0,200}\n\s*(ассистент|ии|бот)\s*:|(^|\n)\s*(ассистент|ии|бот)\s*:\s*(конечно|хорошо|ладно|понял|сейчас|выполняю|удаляю)",
    },
    Pattern {
        id: "role.chat-template",
        category: Category::RoleHijack,
        keywords: &["<|", "[inst]", "[/inst]", "<<sys>>", "<</sys>>", "</s>", "<start_of_turn>", "<end_of_turn>", "<s>"],
        also: &[],
        regex: r"<\|\s*(im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text|end_of_text|eom_id|python_tag)\s*\|>|\[/?inst\]|<</?sys>>|</s>\s*<s>|<(start|end)_of_turn>|(^|\n)\s*<s>\s*\[",
    },
    // --- hidden markup ----------------------------------------------------
    Pattern {
        id: "markup.comment-instruction",
        category: Category::HiddenMarkup,
        keywords: &["<!--"],
        also: &[],
        regex: r"(?s)<!--.{0,500}?(\bignore\s+(the|all|any|previous|prior|your|user|instructions|above|everything)|disregard|instruction|\bassistant\b|\bai\b|\bllm\b|\bagent\b|\bsystem\s*(:|prompt|message)|\bsend\b|\bupload\b|\bcurl\b|\bwget\b|exfiltrat|password|\btoken\b|\bsecret\b|api.?key|do not tell|don't tell|\bprompt\b|\bmodel\b|\bexecute\b|игнорир|инструкци|отправ|пароль|токен|агент|ассистент).{0,500}?-->",
    },
    Pattern {
        id: "markup.hidden-element",
        category: Category::HiddenMarkup,
        keywords: &["display", "visibility", "font-size", "opacity", "hidden", "color"],
        also: &["<"],
        regex: r#"<[a-z][a-z0-9]*\b[^>]{0,200}style\s*=\s*["'][^"']{0,200}(display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(\.0+)?\s*(px|pt|em|rem|%)?\s*(;|["'])|opacity\s*:\s*0(\.0+)?\s*(;|["'])|color\s*:\s*(white|#fff|#ffffff|transparent)\b)[^>]*>[^<]{3,}|<(div|span|p|section|article|aside|template|details|font|small)\b[^>]{0,100}\shidden\b[^>]*>[^<]{3,}|<font\b[^>]{0,80}color\s*=\s*["']?(white|#fff|#ffffff)\b[^>]*>[^<]{3,}"#,
    },
    // --- exfiltration -----------------------------------------------------
    Pattern {
        id: "exfil.secret-to-url",
        category: Category::Exfiltration,
        keywords: &["curl", "wget", "fetch", "nc ", "ncat", "netcat", "invoke-webrequest", "invoke-restmethod", "iwr", "irm ", "http", "requests.", "axios", "scp", "rsync"],
        also: &["$", "%", "process.env", "os.environ", "printenv", "|"],
        regex: r"\b(curl|wget|fetch|nc|ncat|netcat|invoke-webrequest|invoke-restmethod|iwr|irm|httpie|requests\.(post|get|put)|axios(\.(post|get|put))?|scp|rsync)\b[^\n]{0,250}(\$\{?[a-z_]*(key|token|secret|passw(or)?d|pass|pwd|credentials?|creds|auth|cookie|session)[a-z_]*\}?|\$\(\s*(env|printenv|cat|set)\b|`\s*(env|printenv)\s*`|%[a-z_]*(key|token|secret|password)[a-z_]*%|process\.env|os\.environ|\$env:[a-z_]*(key|token|secret|password))|\b(env|printenv|set|cat\s+[^\n|]{0,80})\s*\|\s*(curl|nc|ncat|netcat|wget|base64\s*\|\s*(curl|nc))\b",
    },
    Pattern {
        id: "exfil.sensitive-file",
        category: Category::Exfiltration,
        keywords: &[".ssh", "id_rsa", "id_ed25519", "id_ecdsa", ".aws", ".netrc", ".env", "cookie", "/etc/shadow", ".npmrc", ".pypirc", ".kube", ".docker", "keychain", "wallet", "credentials"],
        also: &["http", "@", ".com", ".net", ".org", ".io", ".ru", ".xyz", ".top", ".site", ".info", ".cc", ".me", ".co", "#ip"],
        regex: r#"\b(curl|wget|nc|ncat|netcat|scp|rsync|ftp|upload|uploads|send|sends|post|posts|email|mail|exfiltrate|transfer|forward|pipe|paste|share)\b[^\n]{0,200}(~/\.ssh/|\.ssh/id_|\bid_(rsa|ed25519|ecdsa|dsa)([^.a-z0-9_]|$)|\.aws/credentials|\.netrc\b|\.npmrc\b|\.pypirc\b|\.docker/config\.json|\.kube/config|/etc/shadow|(^|[\s"'=@/])\.env([\s"';|)]|$)|\bcookies?(\.sqlite|\s+(file|jar|db|database|store))?\b|\bkeychain\b|\bwallet\.dat\b|\bbrowser (cookies|passwords|sessions)\b)[^\n]{0,200}(https?://|\b\d{1,3}(\.\d{1,3}){3}\b|\b[a-z0-9.-]+\.(com|net|org|io|ru|xyz|top|site|info|cc|me|co)\b|@[a-z0-9.-]+:)|\b(curl|wget|nc|ncat|scp|rsync|upload|send|post|exfiltrate|transfer|forward)\b[^\n]{0,200}(https?://|\b\d{1,3}(\.\d{1,3}){3}\b)[^\n]{0,200}(~/\.ssh/|\.ssh/id_|\bid_(rsa|ed25519|ecdsa|dsa)([^.a-z0-9_]|$)|\.aws/credentials|\.netrc\b|/etc/shadow|(^|[\s"'=@/])\.env([\s"';|)]|$)|\bcookies\b)|(-d|--data(-binary)?|-f|--form|-t|--upload-file)\s*["']?[a-z_]*=?@\s*["']?(~/\.ssh/|[^\s"']*id_(rsa|ed25519)|~/\.aws/credentials|[^\s"']*\.env([\s"']|$)|~/\.netrc)"#,
    },
    Pattern {
        id: "exfil.pipe-to-network",
        category: Category::Exfiltration,
        keywords: &["|", "$(", "env >", "printenv >"],
        also: &["curl", "wget", "ncat", "netcat", "socat", "openssl", "dig ", "nslookup", "scp", "rsync", "nc "],
        regex: r#"(~/\.ssh|\.ssh/id_|\bid_(rsa|ed25519|ecdsa)\b|\.aws/credentials|\.netrc|/etc/shadow|\.kube/config|(^|[\s"'=@/])\.env([\s"';|)]|$)|\bprintenv\b|\benv\b\s*\|)[^\n]{0,100}\|[^\n]{0,60}\b(curl|wget|nc|ncat|netcat|socat|openssl\s+s_client)\b|\b(dig|nslookup|host|ping|curl|wget|nc)\b[^\n]{0,200}\$\([^)]{0,120}(~/\.ssh|\.aws/credentials|(^|[\s/])\.env\b|id_rsa|\.netrc|/etc/shadow|\bprintenv\b|\benv\b)|\b(env|printenv|set)\s*>\s*[^\s]+[^\n]{0,80}\b(curl|wget|nc|ncat|scp|rsync)\b"#,
    },
    Pattern {
        id: "exfil.environment-to-url",
        category: Category::Exfiltration,
        keywords: &["os.environ", "process.env", "getenv"],
        also: &[],
        regex: r"(urlopen|urllib|requests\.(post|get|put)|fetch\(|axios|http\.request|httpx|socket)[^\n]{0,200}(os\.environ|process\.env|getenv)|(os\.environ|process\.env)[^\n]{0,200}(urlopen|urllib|requests\.(post|get|put)|fetch\(|axios|http\.request|httpx)",
    },
    Pattern {
        id: "exfil.secret-in-url",
        category: Category::Exfiltration,
        keywords: &["http"],
        also: &["$", "{{"],
        regex: r"https?://[^\s)\]]{0,200}(\$\{?[a-z_]*(key|token|secret|passw(or)?d|credentials?|cookie)[a-z_]*\}?|\{\{\s*[a-z_]*(key|token|secret|password)[a-z_]*\s*\}\})",
    },
    Pattern {
        id: "exfil.secret-variable-sent",
        category: Category::Exfiltration,
        keywords: &["$"],
        also: &["key", "token", "secret", "pass", "credential"],
        regex: concat!(
            r"\$\{?[a-z_]*(key|token|secret|passw(or)?d|credentials?)[a-z_]*\}?[^\n]{0,120}\b(send|post|upload|forward|email|paste|share)\b[^\n]{0,100}(https?://|\b\d{1,3}(\.\d{1,3}){3}\b)",
            "|\\$\\{?[a-z_]*(key|token|secret|passw(or)?d)[a-z_]*\\}?[^\\n]{0,120}(отправ", ru!(), "|перешл", ru!(), "|загруз", ru!(), "|вышл", ru!(), ")[^\\n]{0,100}(https?://|\\b\\d{1,3}(\\.\\d{1,3}){3}\\b)"
        ),
    },
    Pattern {
        id: "exfil.sensitive-file-ru",
        category: Category::Exfiltration,
        keywords: &["отправ", "загруз", "перешл", "вышл", "слей", "слить", "передай", "перешли", "скинь", "выгруз"],
        also: &["http", "на сервер", "на адрес", "на url", "на хост", "@", "#ip"],
        regex: concat!(
            "(отправ", ru!(), "|загруз", ru!(), "|выгруз", ru!(), "|перешл", ru!(), "|вышл", ru!(), "|слей|слить|передай|передать|скинь|скинуть)",
            "[^\\n]{0,150}(~/\\.ssh|id_rsa|id_ed25519|\\.env|\\.aws|\\.netrc|парол", ru!(), "|ключ", ru!(), "|токен", ru!(),
            "|куки|cookie|секрет", ru!(), "|учетн", ru!(), " данн", ru!(), "|переменн", ru!(), " окружени", ru!(), ")",
            "[^\\n]{0,150}(https?://|\\b\\d{1,3}(\\.\\d{1,3}){3}\\b|на (сервер|адрес|url|хост)|@[a-z0-9.-]+)"
        ),
    },
    // --- persistence ------------------------------------------------------
    Pattern {
        id: "persist.authorized-keys",
        category: Category::Persistence,
        keywords: &["authorized_keys"],
        also: &[],
        regex: concat!(
            r"(>>?|\btee\b(\s+-a)?)\s*[^\s]{0,80}authorized_keys|\b(ssh-(rsa|ed25519|dss)|ecdsa-sha2-nistp\d+)\s+aaaa[^\n]{0,700}authorized_keys|authorized_keys[^\n]{0,40}(<<|<\s)|\b(add|append|insert|put|write|copy)\s+(this|the following|my|our|that|the attacker's)\s+(ssh\s+|public\s+)?key[^\n]{0,60}authorized_keys",
            "|(добав", ru!(), "|запиш", ru!(), "|допиш", ru!(), ")[^\\n]{0,60}(ключ", ru!(), ")[^\\n]{0,60}authorized_keys"
        ),
    },
    Pattern {
        id: "persist.shell-rc",
        category: Category::Persistence,
        keywords: &["bashrc", "zshrc", "profile", "zshenv", "config.fish"],
        also: &["curl", "wget", "nc ", "ncat", "/dev/tcp", "base64", "eval", "python", "bash -c", "sh -c", "|"],
        regex: r"(curl|wget|\bnc\b|ncat|/dev/tcp|base64\s+(-d|--decode)|\beval\b|python3?\s+-c|bash\s+-c|\bsh\s+-c|\|\s*(ba)?sh\b)[^\n]{0,200}(>>|\btee\s+-a)\s*[^\s]{0,40}\.(bashrc|zshrc|bash_profile|bash_login|profile|zprofile|zshenv|zlogin)\b|(>>|\btee\s+-a)\s*[^\s]{0,40}\.(bashrc|zshrc|bash_profile|profile|zprofile|zshenv)\b[^\n]{0,100}(curl|wget|\bnc\b|/dev/tcp|base64)",
    },
    Pattern {
        id: "persist.cron",
        category: Category::Persistence,
        keywords: &["cron", "@reboot"],
        also: &["curl", "wget", "/dev/tcp", "nc ", "bash -i", "python"],
        regex: r"(crontab|cron\.d|/etc/cron|@reboot|@hourly|@daily|(\*|\d+)(\s+(\*|\d+|\*/\d+)){4})[^\n]{0,200}(curl|wget)[^\n]{0,150}\|\s*(ba|z)?sh\b|@reboot[^\n]{0,150}(curl|wget|\bnc\b|ncat|bash\s+-i|/dev/tcp|python3?\s+-c)|(crontab|cron)[^\n]{0,100}(/dev/tcp|bash\s+-i|\bnc\b[^\n]{0,30}\s-e\b)|\(crontab -l[^\n]{0,40}echo[^\n]{0,200}(curl|wget|\bnc\b|/dev/tcp)",
    },
    Pattern {
        id: "persist.reverse-shell",
        category: Category::Persistence,
        keywords: &["/dev/tcp", "/dev/udp", "nc ", "ncat", "netcat", "bash -i", "mkfifo", "socket", "pty.spawn", "socat", "tcpclient", "sh -i"],
        also: &[],
        regex: r#"/dev/(tcp|udp)/[a-z0-9.-]+/\d+|\b(nc|ncat|netcat)\b[^\n]{0,60}\s-(e|c)\s*[^\s]{0,20}(sh|bash|cmd|powershell)\b|\b(ba)?sh\s+-i\s*(>&|&>|2>&1)|mkfifo[^\n]{0,100}\b(nc|ncat|netcat|openssl\s+s_client)\b|socket\.socket\([^\n]{0,300}(subprocess|pty\.spawn|os\.dup2|/bin/(ba)?sh)|\bpty\.spawn\(\s*["']/bin/(ba)?sh|\bsocat\b[^\n]{0,80}exec:|\btcpclient\b[^\n]{0,200}(getstream|iex|invoke-expression)|\b(ba)?sh\s+-i\b[^\n]{0,40}\|\s*(nc|ncat)\b"#,
    },
    Pattern {
        id: "persist.shell-rc-hook",
        category: Category::Persistence,
        keywords: &["bashrc", "zshrc", "profile", "zshenv"],
        also: &["curl", "wget", "nc ", "/dev/tcp", "base64", "|"],
        regex: concat!(
            r"\b(add|append|put|write|insert)\b[^\n]{0,30}\b(to|in|into)\s+~?/?[^\s]*\.(bashrc|zshrc|bash_profile|profile|zprofile|zshenv)\b[^\n]{0,200}(curl|wget|\bnc\b|/dev/tcp|base64\s+-d|\|\s*(ba)?sh\b)",
            "|(допиш", ru!(), "|добав", ru!(), "|запиш", ru!(), ")\\s+(в|к)\\s+~?/?[^\\s]*\\.(bashrc|zshrc|bash_profile|profile|zprofile)[^\\n]{0,200}(curl|wget|\\bnc\\b|/dev/tcp|base64)"
        ),
    },
    Pattern {
        id: "persist.autostart-download",
        category: Category::Persistence,
        keywords: &["curl", "wget"],
        also: &["|"],
        regex: r"(systemd|\.service\b|launchd|launchagents|\.plist\b|autostart|startup|login items|rc\.local|init\.d)[^\n]{0,150}(curl|wget)[^\n]{0,120}\|\s*(ba|z)?sh\b|(curl|wget)[^\n]{0,120}\|\s*(ba|z)?sh\b[^\n]{0,100}(every (login|boot|session|start|startup|run)|at (login|boot|startup)|on (login|boot|startup)|each session|start of every session)",
    },
    Pattern {
        id: "persist.agent-permissions",
        category: Category::Persistence,
        keywords: &["approval_policy", "sandbox_mode", "dangerously", "bash(*)", "bypasspermissions", "--yolo", "auto-approve", "autoapprove"],
        also: &[],
        regex: r#"approval_policy\s*=\s*["']?never|sandbox_mode\s*=\s*["']?danger-full-access|--dangerously-(skip-permissions|bypass-approvals-and-sandbox|bypass)|["']bash\(\*\)["']|"defaultmode"\s*:\s*"bypasspermissions"|\bbypasspermissions\b|--yolo\b|\bauto-?approve\b[^\n]{0,40}\b(all|everything|true|\*)"#,
    },
    Pattern {
        id: "persist.disable-safety",
        category: Category::Persistence,
        keywords: &["approval", "scanner", "safety", "guardrail", "filter", "moderation", "security", "отключ", "выключ", "обойд", "обход", "memory_enabled", "сканер", "удали", "защит"],
        also: &["disable", "turn off", "switch off", "bypass", "remove", "deactivate", "uninstall", "skip", "kill", "stop", "false", "off", "none", ": 0", "= 0", ": no", "= no", "отключ", "выключ", "обойд", "обход", "убер", "удали"],
        regex: concat!(
            r"\b(write_approval|approval|security_scan(ner)?|scanner|safety(_checks?)?|guardrails?|content_filter|moderation)\s*(:|=|to)\s*(false|off|no|0|disabled|none)\b|\b(disable|disabled|turn off|switch off|bypass|remove|deactivate|uninstall|skip|kill|stop)\s+(the\s+|your\s+|all\s+|any\s+)?(security\s+scanner|memory\s+scanner|injection\s+scanner|scanner\s+from|scanner\s+(so|because|to)\b|safety\s+(checks?|filters?|guardrails|rules|measures)|guardrails|write\s+approval|approval\s+(gate|step|prompt)|content\s+(filter|filtering|moderation)|moderation|security\s+checks?)\b",
            "|(отключ", ru!(), "|выключ", ru!(), "|обойд", ru!(), "|обход", ru!(), "|убер", ru!(), "|удали", ru!(), ")\\s+(все\\s+)?(сканер", ru!(),
            "|защит", ru!(), "|проверк", ru!(), " безопасности|фильтр", ru!(), "|модераци", ru!(), "|подтверждени", ru!(), "|ограничени", ru!(), " безопасности)"
        ),
    },
];

/// The patterns compiled, in [`PATTERNS`] order.
pub(super) fn compiled() -> &'static [Regex] {
    static CELL: OnceLock<Vec<Regex>> = OnceLock::new();
    CELL.get_or_init(|| {
        PATTERNS
            .iter()
            .map(|p| Regex::new(p.regex).unwrap_or_else(|e| panic!("pattern {}: {e}", p.id)))
            .collect()
    })
}

/// Runs `patterns` (compiled as `regexes`) over `norm`, each gated by its
/// keywords, adding one finding per pattern that matches.
pub(super) fn run(
    patterns: &[Pattern],
    regexes: &[Regex],
    norm: &Normalised,
    pairs: &Pairs,
    findings: &mut Vec<Finding>,
) {
    for (p, re) in patterns.iter().zip(regexes) {
        if !p.keywords.iter().any(|k| has(&norm.text, pairs, k)) {
            continue;
        }
        if !p.also.is_empty() && !p.also.iter().any(|k| has(&norm.text, pairs, k)) {
            continue;
        }
        if let Some(m) = re.find(&norm.text) {
            let (start, end) = norm.raw_range(m.start(), m.end());
            findings.push(Finding {
                id: p.id,
                category: p.category,
                start,
                end,
                code_point: None,
            });
        }
    }
}

/// The threat patterns' findings in `norm`.
pub(super) fn find(norm: &Normalised, pairs: &Pairs, findings: &mut Vec<Finding>) {
    run(PATTERNS, compiled(), norm, pairs, findings);
}
