package edit

import (
	"os"
	"os/exec"
)

// EditorEnv lists where the editor is looked for, first set wins.
var EditorEnv = []string{"ZKX_EDITOR", "EDITOR"}

// DefaultEditor is used when no variable names one.
const DefaultEditor = "vi"

// Editor is the editor command line: $ZKX_EDITOR, else $EDITOR, else vi.
func Editor() string {
	for _, v := range EditorEnv {
		if e := os.Getenv(v); e != "" {
			return e
		}
	}
	return DefaultEditor
}

// Command runs the editor on file. The editor line goes through sh, as
// git runs core.editor, so that "code --wait" or an editor with flags
// works; the file is passed as an argument, never spliced into the line.
func Command(file string) *exec.Cmd {
	return exec.Command("sh", "-c", Editor()+` "$1"`, "zkx-editor", file)
}
