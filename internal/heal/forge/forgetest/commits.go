package forgetest

import (
	"net/http"
	"strconv"
)

// CommitCheck is a check run as a commit's check run listing reports it;
// an empty Conclusion is reported as null.
type CommitCheck struct {
	Name, Status, Conclusion string
}

// CommitStatus is one status of a commit (GitHub's statuses API).
type CommitStatus struct {
	Context, State, Description string
}

// commitChecks is what the server reports for one commit: the check run
// lists of successive polls (the last one repeats), its statuses, and how
// often the first page of its check runs was read.
type commitChecks struct {
	script   [][]CommitCheck
	statuses []CommitStatus
	polls    int
}

func (s *Server) commit(repo, sha string) *commitChecks {
	if s.commits == nil {
		s.commits = map[string]*commitChecks{}
	}
	c := s.commits[repo+"@"+sha]
	if c == nil {
		c = &commitChecks{}
		s.commits[repo+"@"+sha] = c
	}
	return c
}

// ScriptChecks makes the check runs of commit sha of repo ("owner/name")
// read, poll by poll, as the lists of script, the last one repeating; a
// poll is a read of the first page. Without a script no check reports.
func (s *Server) ScriptChecks(repo, sha string, script ...[]CommitCheck) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commit(repo, sha).script = script
}

// SetStatuses sets the statuses the combined status of sha combines.
func (s *Server) SetStatuses(repo, sha string, st ...CommitStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commit(repo, sha).statuses = st
}

// CheckPolls returns how many times the check runs of sha were polled.
func (s *Server) CheckPolls(repo, sha string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commit(repo, sha).polls
}

// commitRead serves GET …/commits/{sha}/check-runs, paginated as GitHub
// does (per_page up to 100), and GET …/commits/{sha}/status, whose state
// GitHub combines: failure when any status is error or failure, pending
// when any is pending or there is none, success otherwise. s.mu is held.
func (s *Server) commitRead(w http.ResponseWriter, r *http.Request, repo, sha, what string) {
	c := s.commit(repo, sha)
	if what == "status" {
		state := "success"
		if len(c.statuses) == 0 {
			state = "pending"
		}
		list := []map[string]any{}
		for _, st := range c.statuses {
			switch {
			case st.State == "error" || st.State == "failure":
				state = "failure"
			case st.State == "pending" && state != "failure":
				state = "pending"
			}
			list = append(list, map[string]any{"state": st.State, "context": st.Context, "description": st.Description})
		}
		writeJSON(w, http.StatusOK, map[string]any{"state": state, "sha": sha, "total_count": len(list), "statuses": list})
		return
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per == 0 {
		per = 30
	}
	page, per = max(page, 1), min(max(per, 1), 100)
	var runs []CommitCheck
	if len(c.script) > 0 {
		runs = c.script[min(c.polls, len(c.script)-1)]
	}
	if page == 1 {
		c.polls++
	}
	list := []map[string]any{}
	for i := (page - 1) * per; i < len(runs) && i < page*per; i++ {
		cr := runs[i]
		var concl any
		if cr.Conclusion != "" {
			concl = cr.Conclusion
		}
		list = append(list, map[string]any{"id": i + 1, "name": cr.Name, "head_sha": sha, "status": cr.Status, "conclusion": concl,
			"html_url": s.URL + "/" + repo + "/runs/" + strconv.Itoa(i+1)})
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(runs), "check_runs": list})
}
