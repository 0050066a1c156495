package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/zkx-dev/zkx/internal/fileread"
)

// jaasUser is one user_NAME="password" option of a JAAS DigestLoginModule.
var jaasUser = regexp.MustCompile(`\buser_([^\s=]+)\s*=\s*"((?:[^"\\]|\\.)*)"`)

// readSASLUsers reads zkx serve's DIGEST-MD5 users: a ZooKeeper JAAS file
// (its user_NAME="password" options), else lines of user:password
// (blank lines and # comments skipped). Errors name the line, never a
// password.
func readSASLUsers(path string) (map[string]string, error) {
	b, err := fileread.ReadFile(path)
	if err != nil {
		return nil, err
	}
	users := map[string]string{}
	if m := jaasUser.FindAllSubmatch(b, -1); m != nil {
		for _, u := range m {
			users[string(u[1])] = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(string(u[2]))
		}
		return users, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		user, password, ok := strings.Cut(text, ":")
		if !ok || user == "" || password == "" {
			return nil, fmt.Errorf("%s:%d: want user:password (or a JAAS file with user_NAME=\"password\")", path, line)
		}
		users[user] = password
	}
	if len(users) == 0 {
		return nil, fmt.Errorf("%s: no users", path)
	}
	return users, nil
}
