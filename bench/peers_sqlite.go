package bench

import (
	"bufio"
	"fmt"
	"io"
	"math/rand"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// sqliteTellers is the number of tellers of the TPC-B-like schema (one
// branch, as pgbench's scale 1).
const sqliteTellers = 10

// runSQLite runs the TPC-B-like mix with synchronous=FULL in rollback
// journal (journal_mode=DELETE) and then WAL mode, each for a fixed time,
// through the sqlite3 shell: one process, fed one transaction at a time,
// whose answer to a marker SELECT after COMMIT ends the transaction's
// timing (the pipe round trip is the same on every target).
func runSQLite(cfg PeersConfig, t peerTarget, dir string) ([]peerResult, error) {
	var out []peerResult
	for _, mode := range []string{"delete", "wal"} {
		name := map[string]string{"delete": "sqlite-rollback", "wal": "sqlite-wal"}[mode]
		cfg.Logf("peers: %s: %s for %v", t.name(), name, cfg.Sizes.Duration)
		r, err := measured(t, func() (peerResult, error) {
			return sqliteRun(filepath.Join(dir, mode+".db"), mode, name, cfg.Sizes)
		})
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// sqliteShell is a running sqlite3 process.
type sqliteShell struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *strings.Builder
}

func startSQLite(db string) (*sqliteShell, error) {
	s := &sqliteShell{cmd: ownSession(exec.Command("sqlite3", "-batch", "-bail", db)), stderr: &strings.Builder{}}
	s.cmd.Stderr = s.stderr
	var err error
	if s.in, err = s.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	o, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s.out = bufio.NewReader(o)
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	return s, nil
}

// exec sends sql followed by a marker and waits for the marker.
func (s *sqliteShell) exec(sql string) error {
	if _, err := io.WriteString(s.in, sql+"\nSELECT 'vlfs-done';\n"); err != nil {
		return s.failed(err)
	}
	for {
		line, err := s.out.ReadString('\n')
		if err != nil {
			return s.failed(err)
		}
		if line == "vlfs-done\n" {
			return nil
		}
	}
}

func (s *sqliteShell) failed(err error) error {
	s.in.Close()
	s.cmd.Wait()
	return fmt.Errorf("sqlite3: %v: %s", err, strings.TrimSpace(s.stderr.String()))
}

func (s *sqliteShell) close() error {
	s.in.Close()
	if err := s.cmd.Wait(); err != nil {
		return fmt.Errorf("sqlite3: %v: %s", err, strings.TrimSpace(s.stderr.String()))
	}
	return nil
}

// sqliteSchema creates and fills pgbench-like tables (fillers as pgbench's).
func sqliteSchema(mode string, accounts int) string {
	return fmt.Sprintf(`PRAGMA journal_mode=%s;
PRAGMA synchronous=FULL;
CREATE TABLE branches(bid INTEGER PRIMARY KEY, bbalance INTEGER NOT NULL, filler TEXT);
CREATE TABLE tellers(tid INTEGER PRIMARY KEY, bid INTEGER NOT NULL, tbalance INTEGER NOT NULL, filler TEXT);
CREATE TABLE accounts(aid INTEGER PRIMARY KEY, bid INTEGER NOT NULL, abalance INTEGER NOT NULL, filler TEXT);
CREATE TABLE history(tid INTEGER, bid INTEGER, aid INTEGER, delta INTEGER, mtime INTEGER, filler TEXT);
BEGIN;
INSERT INTO branches VALUES(1, 0, printf('%%88s', ''));
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < %d) INSERT INTO tellers SELECT x, 1, 0, printf('%%84s', '') FROM c;
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < %d) INSERT INTO accounts SELECT x, 1, 0, printf('%%84s', '') FROM c;
COMMIT;`, mode, sqliteTellers, accounts)
}

// tpcbTxn is one TPC-B-like transaction (pgbench's default script).
func tpcbTxn(rng *rand.Rand, accounts int) string {
	aid, tid, delta := 1+rng.Intn(accounts), 1+rng.Intn(sqliteTellers), rng.Intn(10001)-5000
	return fmt.Sprintf(`BEGIN;
UPDATE accounts SET abalance = abalance + %[3]d WHERE aid = %[1]d;
SELECT abalance FROM accounts WHERE aid = %[1]d;
UPDATE tellers SET tbalance = tbalance + %[3]d WHERE tid = %[2]d;
UPDATE branches SET bbalance = bbalance + %[3]d WHERE bid = 1;
INSERT INTO history VALUES(%[2]d, 1, %[1]d, %[3]d, strftime('%%s', 'now'), printf('%%22s', ''));
COMMIT;`, aid, tid, delta)
}

func sqliteRun(db, mode, name string, s PeersSizes) (peerResult, error) {
	sh, err := startSQLite(db)
	if err != nil {
		return peerResult{}, err
	}
	if err := sh.exec(sqliteSchema(mode, s.SQLiteRows)); err != nil {
		return peerResult{}, err
	}
	rng := rand.New(rand.NewSource(3))
	var lat latencies
	start := time.Now()
	for time.Since(start) < s.Duration {
		t0 := time.Now()
		if err := sh.exec(tpcbTxn(rng, s.SQLiteRows)); err != nil {
			return peerResult{}, err
		}
		lat.add(t0)
	}
	elapsed := time.Since(start)
	if err := sh.close(); err != nil {
		return peerResult{}, err
	}
	return lat.result(name, 0, elapsed), nil
}
