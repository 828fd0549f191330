package rpc

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph/auth"
	"github.com/polgraph/polgraph/graph/memstore"
)

// viewsServer serves ViewService on an empty memstore behind the credential and role checks, with
// anonymous reads allowed; it returns a client and the secrets of a reader's and an editor's keys.
func viewsServer(t *testing.T, opts ViewOptions) (pb.ViewServiceClient, string, string) {
	t.Helper()
	keys := &memKeys{keys: map[string]auth.Key{}}
	newKey := func(name string, r auth.Role) string {
		secret, k, err := auth.NewKey(name, r, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		keys.CreateKey(context.Background(), k)
		return secret
	}
	reader, editor := newKey("rita", auth.Reader), newKey("eddie", auth.Editor)
	a := NewAuth(AuthOptions{Keys: keys, AnonymousReads: true}, slog.New(slog.DiscardHandler))
	srv := grpc.NewServer(grpc.ChainUnaryInterceptor(a.Unary()))
	// Who makes a call, as serve names it: the key as the trail shows it, then its name and id.
	principal := func(ctx context.Context) (string, []string) {
		p, ok := auth.PrincipalFrom(ctx)
		if !ok || p.Kind != auth.APIKey {
			return "anonymous", nil
		}
		return p.String(), []string{p.Name, string(p.KeyID)}
	}
	pb.RegisterViewServiceServer(srv, NewViewServer(memstore.New(), principal, opts, slog.New(slog.DiscardHandler)))
	if missing := UncoveredMethods(srv.GetServiceInfo()); len(missing) > 0 {
		t.Errorf("methods without a role: %v", missing)
	}
	lis := bufconn.Listen(1 << 20)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///bufconn", grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return pb.NewViewServiceClient(conn), reader, editor
}

func withBearer(ctx context.Context, secret string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+secret)
}

// TestViewServiceRoles: readers (and anonymous callers, where reads are open) list and open views; only
// an editor saves, changes and deletes them, and the view names the editor's key as who saved it.
func TestViewServiceRoles(t *testing.T) {
	t.Parallel()
	c, reader, editor := viewsServer(t, ViewOptions{})
	ctx := context.Background()
	view := &pb.SavedView{Title: "Aspire", Query: "open=parties/aspire"}

	for _, tc := range []struct {
		name   string
		ctx    context.Context
		code   codes.Code
		reason string
	}{
		{"anonymous", ctx, codes.Unauthenticated, "API_KEY_MISSING"},
		{"reader", withBearer(ctx, reader), codes.PermissionDenied, "ROLE_TOO_LOW"},
	} {
		_, err := c.CreateView(tc.ctx, &pb.CreateViewRequest{View: view})
		if status.Code(err) != tc.code || reasonOf(err) != tc.reason {
			t.Errorf("%s's CreateView: %v; want %s, %s", tc.name, err, tc.code, tc.reason)
		}
		_, err = c.DeleteView(tc.ctx, &pb.DeleteViewRequest{Name: "views/aspire"})
		if status.Code(err) != tc.code {
			t.Errorf("%s's DeleteView: %v; want %s", tc.name, err, tc.code)
		}
	}
	created, err := c.CreateView(withBearer(ctx, editor), &pb.CreateViewRequest{View: view})
	if err != nil {
		t.Fatalf("an editor's CreateView: %v", err)
	}
	v := created.GetView()
	if v.GetName() != "views/aspire" || v.GetCreatePrincipal() != "eddie" || v.GetUpdatePrincipal() != "eddie" || v.GetEtag() == "" || v.GetCreateTime() == nil {
		t.Errorf("CreateView gave %v; want views/aspire, saved by eddie, with an etag and a time", v)
	}
	for name, rctx := range map[string]context.Context{"anonymous": ctx, "reader": withBearer(ctx, reader)} {
		got, err := c.GetView(rctx, &pb.GetViewRequest{Name: "views/aspire"})
		if err != nil || got.GetView().GetEtag() != v.GetEtag() {
			t.Errorf("%s's GetView: %v, %v", name, got, err)
		}
		list, err := c.ListViews(rctx, &pb.ListViewsRequest{})
		if err != nil || len(list.GetViews()) != 1 {
			t.Errorf("%s's ListViews: %v, %v", name, list, err)
		}
	}
	_, err = c.UpdateView(withBearer(ctx, reader), &pb.UpdateViewRequest{View: &pb.SavedView{Name: "views/aspire", Title: "Mine"}})
	if status.Code(err) != codes.PermissionDenied {
		t.Errorf("a reader's UpdateView: %v; want PERMISSION_DENIED", err)
	}
	if _, err := c.DeleteView(withBearer(ctx, editor), &pb.DeleteViewRequest{Name: "views/aspire", Etag: v.GetEtag()}); err != nil {
		t.Errorf("an editor's DeleteView: %v", err)
	}
}

// TestViewServiceErrors: each kind of refusal has its gRPC code, and bad fields their violations.
func TestViewServiceErrors(t *testing.T) {
	t.Parallel()
	c, _, editor := viewsServer(t, ViewOptions{})
	ctx := withBearer(context.Background(), editor)
	first, err := c.CreateView(ctx, &pb.CreateViewRequest{ViewId: "poplar", View: &pb.SavedView{Title: "Poplar", Query: "open=seats/poplar"}})
	if err != nil {
		t.Fatal(err)
	}
	etag := first.GetView().GetEtag()
	updated, err := c.UpdateView(ctx, &pb.UpdateViewRequest{View: &pb.SavedView{Name: "views/poplar", StoryOrder: 4},
		UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"story_order"}}, Etag: etag})
	if err != nil || updated.GetView().GetStoryOrder() != 4 || updated.GetView().GetTitle() != "Poplar" || updated.GetView().GetEtag() == etag {
		t.Fatalf("UpdateView of story_order: %v, %v", updated, err)
	}
	for _, tc := range []struct {
		name  string
		call  func() error
		code  codes.Code
		field string // the field violation's, for INVALID_ARGUMENT
	}{
		{"an id taken", func() error {
			_, err := c.CreateView(ctx, &pb.CreateViewRequest{ViewId: "poplar", View: &pb.SavedView{Title: "Again", Query: "q=1"}})
			return err
		}, codes.AlreadyExists, ""},
		{"a stale etag", func() error {
			_, err := c.UpdateView(ctx, &pb.UpdateViewRequest{View: &pb.SavedView{Name: "views/poplar", Title: "T", Query: "q"}, Etag: etag})
			return err
		}, codes.Aborted, ""},
		{"a stale etag on delete", func() error {
			_, err := c.DeleteView(ctx, &pb.DeleteViewRequest{Name: "views/poplar", Etag: etag})
			return err
		}, codes.Aborted, ""},
		{"no such view", func() error {
			_, err := c.GetView(ctx, &pb.GetViewRequest{Name: "views/nowhere"})
			return err
		}, codes.NotFound, ""},
		{"not a view's name", func() error {
			_, err := c.GetView(ctx, &pb.GetViewRequest{Name: "actors/nowhere"})
			return err
		}, codes.InvalidArgument, "name"},
		{"no view", func() error {
			_, err := c.CreateView(ctx, &pb.CreateViewRequest{})
			return err
		}, codes.InvalidArgument, "view"},
		{"a note on a source", func() error {
			_, err := c.CreateView(ctx, &pb.CreateViewRequest{View: &pb.SavedView{Title: "T", Query: "q",
				Notes: []*pb.ViewNote{{Target: "actors/a", Text: "fine"}, {Target: "sources/b", Text: "not an entity"}}}})
			return err
		}, codes.InvalidArgument, "view.notes[1].target"},
		{"an output-only field in the mask", func() error {
			_, err := c.UpdateView(ctx, &pb.UpdateViewRequest{View: &pb.SavedView{Name: "views/poplar"}, UpdateMask: &fieldmaskpb.FieldMask{Paths: []string{"etag"}}})
			return err
		}, codes.InvalidArgument, "update_mask.paths[0]"},
		{"a page token of another request", func() error {
			_, err := c.ListViews(ctx, &pb.ListViewsRequest{Story: "x", PageToken: encodeToken(pageToken{Query: "other", Offset: 2})})
			return err
		}, codes.InvalidArgument, "page_token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if status.Code(err) != tc.code {
				t.Fatalf("got %v; want %s", err, tc.code)
			}
			if tc.field == "" {
				return
			}
			vs := fieldViolations(status.Convert(err))
			if len(vs) == 0 || vs[0].GetField() != tc.field {
				t.Errorf("violations %v; want one of %s first", vs, tc.field)
			}
		})
	}
}

// TestListViewsPages: page tokens walk a story's views in their order.
func TestListViewsPages(t *testing.T) {
	t.Parallel()
	c, _, editor := viewsServer(t, ViewOptions{})
	ctx := withBearer(context.Background(), editor)
	for i, title := range []string{"One", "Two", "Three", "Four", "Five"} {
		if _, err := c.CreateView(ctx, &pb.CreateViewRequest{View: &pb.SavedView{Title: title, Query: "q", Story: "walk", StoryOrder: int32(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	req := &pb.ListViewsRequest{Story: "walk", PageSize: 2}
	for range 5 {
		resp, err := c.ListViews(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range resp.GetViews() {
			got = append(got, v.GetTitle())
		}
		if resp.GetNextPageToken() == "" {
			break
		}
		req.PageToken = resp.GetNextPageToken()
	}
	if want := "One Two Three Four Five"; strings.Join(got, " ") != want {
		t.Errorf("pages gave %q; want %q", strings.Join(got, " "), want)
	}
}

// TestReadOnlyViewServer: a server that takes no writes lists and opens views, and refuses changes.
func TestReadOnlyViewServer(t *testing.T) {
	t.Parallel()
	c, _, editor := viewsServer(t, ViewOptions{ReadOnly: true})
	ctx := withBearer(context.Background(), editor)
	_, err := c.CreateView(ctx, &pb.CreateViewRequest{View: &pb.SavedView{Title: "T", Query: "q"}})
	if status.Code(err) != codes.FailedPrecondition || reasonOf(err) != ReasonViewsReadOnly {
		t.Errorf("CreateView on a read-only server: %v; want FAILED_PRECONDITION, %s", err, ReasonViewsReadOnly)
	}
	if _, err := c.ListViews(ctx, &pb.ListViewsRequest{}); err != nil {
		t.Errorf("ListViews on a read-only server: %v", err)
	}
}
