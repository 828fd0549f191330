package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
)

// viewCall calls a ViewService method over HTTP in the Connect protocol, as the explorer does, with key.
func viewCall(t *testing.T, base, key, method, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/polgraph.v1.ViewService/"+method, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Connect-Protocol-Version", "1")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s: the answer is not JSON: %v", method, err)
	}
	return resp.StatusCode, out
}

// TestSavedViewsServed: the served ViewService saves an editor's view from the explorer's JSON, credited
// to the key's name, opens it for a reader over gRPC, refuses a stale etag, and leaves it in the trail.
func TestSavedViewsServed(t *testing.T) {
	ctx := context.Background()
	grpcAddr, base := serveWith(t, defaultConfig())
	editorName := uniqueName("views-editor")
	editor, _ := makeKey(t, editorName, "editor")
	reader, _ := makeKey(t, uniqueName("views-reader"), "reader")
	id := uniqueName("walk")

	code, out := viewCall(t, base, editor, "CreateView", `{"viewId": "`+id+`", "view": {"title": "Tower Hamlets, 2015",
		"query": "open=actors/lutfur-rahman&asof=2015", "story": "Tower-Hamlets", "storyOrder": 2,
		"notes": [{"target": "actors/lutfur-rahman", "text": "Elected mayor"}]}}`)
	view, _ := out["view"].(map[string]any)
	if code != http.StatusOK || view["name"] != "views/"+id || view["createPrincipal"] != editorName || view["story"] != "tower-hamlets" {
		t.Fatalf("CreateView over HTTP: %d %v", code, out)
	}
	etag, _ := view["etag"].(string)

	code, out = viewCall(t, base, editor, "UpdateView", `{"view": {"name": "views/`+id+`", "title": "Renamed"}, "updateMask": "title", "etag": "`+etag+`"}`)
	if updated, _ := out["view"].(map[string]any); code != http.StatusOK || updated["title"] != "Renamed" || updated["query"] != "open=actors/lutfur-rahman&asof=2015" {
		t.Fatalf("UpdateView of the title over HTTP: %d %v", code, out)
	}
	code, out = viewCall(t, base, editor, "UpdateView", `{"view": {"name": "views/`+id+`", "title": "Stale"}, "updateMask": "title", "etag": "`+etag+`"}`)
	if code != http.StatusConflict || out["code"] != "aborted" {
		t.Errorf("UpdateView with a stale etag over HTTP: %d %v; want 409, aborted", code, out)
	}
	if code, out := viewCall(t, base, reader, "CreateView", `{"view": {"title": "Mine", "query": "q=1"}}`); code != http.StatusForbidden {
		t.Errorf("a reader's CreateView over HTTP: %d %v; want 403", code, out)
	}

	vs := pb.NewViewServiceClient(dialPlain(t, grpcAddr))
	got, err := vs.GetView(withKey(ctx, reader), &pb.GetViewRequest{Name: "views/" + id})
	if err != nil || got.GetView().GetTitle() != "Renamed" || len(got.GetView().GetNotes()) != 1 || got.GetView().GetUpdatePrincipal() != editorName {
		t.Errorf("a reader's GetView: %v, %v", got, err)
	}
	list, err := vs.ListViews(withKey(ctx, reader), &pb.ListViewsRequest{Story: "tower-hamlets"})
	if err != nil || len(list.GetViews()) == 0 {
		t.Errorf("a reader's ListViews of the story: %v, %v", list, err)
	}
	changes, err := pb.NewWriteServiceClient(dialPlain(t, grpcAddr)).ListChanges(withKey(ctx, editor), &pb.ListChangesRequest{Resource: "views/" + id})
	if err != nil || len(changes.GetChanges()) != 2 || changes.GetChanges()[0].GetAction() != "UPDATE" || !strings.Contains(changes.GetChanges()[0].GetPrincipal(), editorName) {
		t.Errorf("the trail of the view: %v, %v; want its update, then its creation, by the editor", changes, err)
	}
}

// TestSavedViewsReadOnlyWithoutWrites: a server started with --writes=false serves views to open, and
// refuses to change them.
func TestSavedViewsReadOnlyWithoutWrites(t *testing.T) {
	ctx := context.Background()
	cfg := defaultConfig()
	cfg.Writes = false
	grpcAddr, _ := serveWith(t, cfg)
	editor, _ := makeKey(t, uniqueName("views-ro-editor"), "editor")
	vs := pb.NewViewServiceClient(dialPlain(t, grpcAddr))
	_, err := vs.CreateView(withKey(ctx, editor), &pb.CreateViewRequest{View: &pb.SavedView{Title: "T", Query: "q=1"}})
	if status.Code(err) != codes.FailedPrecondition || reason(err) != "VIEWS_READ_ONLY" {
		t.Errorf("CreateView without writes: %v; want FAILED_PRECONDITION, VIEWS_READ_ONLY", err)
	}
	if _, err := vs.ListViews(withKey(ctx, editor), &pb.ListViewsRequest{}); err != nil {
		t.Errorf("ListViews without writes: %v", err)
	}
}
