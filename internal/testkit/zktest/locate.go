package zktest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const (
	// envRealZK set to "required" turns skips of real-ZooKeeper tests into failures.
	envRealZK = "ZKX_REAL_ZK"
	// envJar overrides where the ZooKeeper server jar is.
	envJar = "ZKX_ZOOKEEPER_JAR"
	// debianJar is where Debian's libzookeeper-java puts the jar.
	debianJar = "/usr/share/java/zookeeper.jar"
	// skipPrefix starts every skip message, so a skip never reads like a pass.
	skipPrefix = "SKIPPING real ZooKeeper test: "
)

// RequireReal reports whether real-ZooKeeper tests must run (env
// ZKX_REAL_ZK=required): then a missing java or zookeeper jar fails the test
// instead of skipping it.
func RequireReal() bool {
	return os.Getenv(envRealZK) == "required"
}

// runtimePaths are the java binary and the server jar.
type runtimePaths struct {
	java, jar string
	classpath string // jar, plus a logging binding when one is installed
}

var (
	locateOnce   sync.Once
	locatedPaths runtimePaths
	locateErr    error
)

// locate finds java and the ZooKeeper jar once per test binary.
func locate() (runtimePaths, error) {
	locateOnce.Do(func() {
		var problems []string
		if !realSupported {
			problems = append(problems, "real servers need a Unix system (process groups, SIGSTOP); use the embedded server")
		}
		java, err := exec.LookPath("java")
		if err != nil {
			problems = append(problems, "java is not on PATH (fix: install a JDK, e.g. apt-get install -y default-jre-headless)")
		}
		jar, err := findJar()
		if err != nil {
			problems = append(problems, err.Error())
		}
		if len(problems) > 0 {
			locateErr = errors.New(strings.Join(problems, "; "))
			return
		}
		locatedPaths = runtimePaths{java: java, jar: jar, classpath: jar}
		// Debian's zookeeper.jar names slf4j-api but no binding, so the
		// server logs nothing; slf4j-simple (libslf4j-java, installed with
		// zookeeper) makes its log worth reading when a test fails.
		if logger := filepath.Join(filepath.Dir(jar), "slf4j-simple.jar"); fileExists(logger) {
			locatedPaths.classpath += string(filepath.ListSeparator) + logger
		}
	})
	return locatedPaths, locateErr
}

// findJar locates the ZooKeeper server jar: ZKX_ZOOKEEPER_JAR, else the
// file libzookeeper-java installed, else (without dpkg) Debian's path.
func findJar() (string, error) {
	if jar := os.Getenv(envJar); jar != "" {
		if _, err := os.Stat(jar); err != nil {
			return "", fmt.Errorf("%s=%s: %w (fix: point it at zookeeper.jar or unset it)", envJar, jar, err)
		}
		return jar, nil
	}
	dpkg, err := exec.LookPath("dpkg")
	if err != nil {
		if _, err := os.Stat(debianJar); err == nil {
			return debianJar, nil
		}
		return "", fmt.Errorf("no dpkg and no %s (fix: apt-get install -y zookeeper, or set %s)", debianJar, envJar)
	}
	out, err := exec.Command(dpkg, "-L", "libzookeeper-java").Output()
	if err != nil {
		return "", fmt.Errorf("package libzookeeper-java is not installed: dpkg -L libzookeeper-java: %v (fix: apt-get install -y zookeeper, or set %s)", err, envJar)
	}
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasSuffix(line, "/zookeeper.jar") {
			continue
		}
		if _, err := os.Stat(line); err != nil {
			return "", fmt.Errorf("libzookeeper-java lists %s but it is missing: %v (fix: apt-get install --reinstall -y libzookeeper-java)", line, err)
		}
		return line, nil
	}
	return "", fmt.Errorf("dpkg -L libzookeeper-java lists no zookeeper.jar (fix: apt-get install -y zookeeper, or set %s)", envJar)
}

// requireRuntime returns java and the jar, or skips t loudly (fails it
// under ZKX_REAL_ZK=required) naming what is missing.
func requireRuntime(t testing.TB) runtimePaths {
	t.Helper()
	p, err := locate()
	if err == nil {
		return p
	}
	msg, fatal := unavailable(err, RequireReal())
	if fatal {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return runtimePaths{}
}

// unavailable words the message for a missing runtime and tells whether
// it is a failure (required) rather than a skip.
func unavailable(err error, required bool) (msg string, fatal bool) {
	if required {
		return fmt.Sprintf("real ZooKeeper test cannot run but %s=required: %v", envRealZK, err), true
	}
	return fmt.Sprintf("%s%v (set %s=required to make this a failure)", skipPrefix, err, envRealZK), false
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
