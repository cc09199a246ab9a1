package retrieval

import "testing"

func TestNamesIdentifier(t *testing.T) {
	for _, tc := range []struct{ question, want string }{
		// Quoted phrases, each kind of quotes; the first one counts.
		{"What does `set dgrid3d` do?", "`set dgrid3d`"},
		{`What does the "Recursive" flag of ploth do?`, `"Recursive"`},
		{"What does “check engine” mean?", "“check engine”"},
		{"Что делает модуль «timer»?", "«timer»"},
		{"Was bedeutet „Taktart“ hier?", "„Taktart“"},
		{"「No room for a new \\toks」というエラー", "「No room for a new \\toks」"},
		{"『取扱説明書』はどこですか", "『取扱説明書』"},
		{"Is ‘low tyre pressure’ a warning?", "‘low tyre pressure’"},
		{"What does 'limp mode' mean?", "'limp mode'"},
		{"Why does `a` come before \"b\"?", "`a`"},
		{"Why does \"b\" come before `a`?", `"b"`},
		{"An empty `` pair, then `set key`", "`set key`"},
		// Tokens.
		{"Wie lege ich mit \\key die Tonart fest?", "\\key"},
		{"Что даёт запуск с параметром -debug?", "-debug"},
		{"What does --compare-versions do?", "--compare-versions"},
		{"Where does $HOME point?", "$HOME"},
		{"What is in /etc/fstab?", "/etc/fstab"},
		{"Where is ~/.bashrc read?", "~/.bashrc"},
		{"Where does R look for .Rprofile first?", ".Rprofile"},
		{"What happens if I pass 0 to size()?", "size()"},
		{"What does R_PROFILE_USER change?", "R_PROFILE_USER"},
		{"What does stroke=true change?", "stroke=true"},
		{"Как работает instead.nosave?", "instead.nosave"},
		{"How do I set PubkeyAuthentication?", "PubkeyAuthentication"},
		{"What voltage may A1 take?", "A1"},
		{"What does code P0420 mean?", "P0420"},
		{"Which filter is 90915-10001?", "90915-10001"},
		{"Where is the GND pin?", "GND"},
		{"Does 1.0~rc1 sort before 1.0?", "1.0~rc1"},
		// Sentence punctuation is not part of the token.
		{"How do I use dgrid3d?", "dgrid3d"},
		{"(see dgrid3d), then what?", "dgrid3d"},
		// A Latin word in a Chinese or Japanese question.
		{"怎样用 iconv 把文本文件转换编码？", "iconv"},
		{"chmod 的数字模式是什么？", "chmod"},
		{"AMC で受験番号をマークさせるには？", "AMC"},
		// None.
		{"How do I check the tyre pressure?", ""},
		{"I don't know why it's not the drivers' fault", ""}, // apostrophes
		{"Is it the 'o' key?", "'o'"},
		{"Why doesn't it start, e.g. in winter?", ""},
		{"Why does typing the circle constant not give 3.14159...?", ""},
		{"How do I draw a 3D surface for the 2nd time at 5V?", ""},
		{"Wie gebe ich D-Dur oder c-Moll ein?", ""},
		{"Как проверить синтаксис Lua-скриптов?", ""},
		{"How do I plot row/column data?", ""},
		{"The page is 29 April 2011, what now?", ""},
		{"一个进程不理会普通的结束请求，我应该给它发送几号信号？", ""},
		{"スペースを節約するために、選択肢を 2 列に並べるには？", ""},
		{"An unclosed `quote and nothing else", ""},
		{"", ""},
	} {
		if got := NamesIdentifier(tc.question); got != tc.want {
			t.Errorf("NamesIdentifier(%q) = %q, want %q", tc.question, got, tc.want)
		}
	}
}
