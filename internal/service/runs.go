package service

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/salve-dev/salve/internal/store"
)

// The run store's read API: the runs the server recorded (every finished
// heal job, under its job id), for remote readers.

func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	if s.Store == nil {
		writeError(w, http.StatusNotFound, "this server has no run store")
		return
	}
	q := r.URL.Query()
	f := store.RunFilter{Kind: q.Get("kind"), Status: q.Get("status"), Limit: 50}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 500 {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("limit: want 1 to 500, got %q", v))
			return
		}
		f.Limit = n
	}
	runs, err := s.Store.ListRuns(r.Context(), f)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if runs == nil {
		runs = []store.Run{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"runs": runs})
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	if s.Store == nil {
		writeError(w, http.StatusNotFound, "this server has no run store")
		return
	}
	id, err := s.Store.ResolveRunID(r.Context(), r.PathValue("id"))
	if err == nil {
		var v store.RunView
		if v, err = s.Store.View(r.Context(), id); err == nil {
			writeJSON(w, http.StatusOK, v)
			return
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, err.Error())
		return
	}
	writeError(w, http.StatusBadRequest, err.Error())
}
