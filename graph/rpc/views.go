package rpc

import (
	"context"
	"log/slog"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	pb "github.com/polgraph/polgraph/api/polgraph/v1"
	"github.com/polgraph/polgraph/graph"
)

// ViewServer implements polgraph.v1.ViewService on a graph.Views. Who saves or changes a view comes from
// the request's context (principal); authentication and roles are the interceptors' job.
type ViewServer struct {
	pb.UnimplementedViewServiceServer
	views     graph.Views
	principal func(context.Context) (name string, aliases []string)
	opts      ViewOptions
	log       *slog.Logger
}

// ViewOptions are how a ViewServer serves.
type ViewOptions struct {
	// ReadOnly refuses every change (FAILED_PRECONDITION, VIEWS_READ_ONLY): views are listed and opened
	// only. A server that takes no writes of the graph serves its views so.
	ReadOnly bool
	// Timeout bounds each call's work in the store (0: no bound but the caller's deadline).
	Timeout time.Duration
}

// ReasonViewsReadOnly is the reason of a change of a view refused by a read-only server.
const ReasonViewsReadOnly = "VIEWS_READ_ONLY"

// NewViewServer returns a ViewServer; principal names who makes a call, as for NewWriteServer: a view
// records the first of the aliases (a key's name, a certificate's common name) as who saved or changed
// it (graph.ViewAuthor), and the audit trail the name.
func NewViewServer(views graph.Views, principal func(context.Context) (string, []string), opts ViewOptions, log *slog.Logger) *ViewServer {
	return &ViewServer{views: views, principal: principal, opts: opts, log: log}
}

// call bounds ctx by the server's timeout and, for a change (method given as a change), refuses it on a
// read-only server and says who makes it.
func (s *ViewServer) call(ctx context.Context, method string, change bool) (context.Context, context.CancelFunc, error) {
	cancel := context.CancelFunc(func() {})
	if s.opts.Timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, s.opts.Timeout)
	}
	if !change {
		return ctx, cancel, nil
	}
	if s.opts.ReadOnly {
		cancel()
		return ctx, cancel, &graph.Error{Op: method, Kind: graph.FailedPrecondition, Reason: ReasonViewsReadOnly,
			Message: "this server takes no writes (--writes=false): its saved views can be listed and opened, not changed"}
	}
	name, aliases := s.principal(ctx)
	return graph.WithWriteMeta(ctx, graph.WriteMeta{Principal: name, Aliases: aliases, Method: method}), cancel, nil
}

// ListViews implements pb.ViewServiceServer.
func (s *ViewServer) ListViews(ctx context.Context, req *pb.ListViewsRequest) (*pb.ListViewsResponse, error) {
	const m = "ListViews"
	var v graph.Violations
	fp := fingerprint(req, func(r *pb.ListViewsRequest) { r.PageToken, r.PageSize = "", 0 })
	offset := pageOffset(req.GetPageToken(), fp, &v)
	if err := v.Err(m, "invalid request"); err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	ctx, cancel, _ := s.call(ctx, m, false)
	defer cancel()
	views, next, err := s.views.ListViews(ctx, graph.ViewQuery{Story: req.GetStory(), Offset: offset, Limit: int(req.GetPageSize())})
	if err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	resp := &pb.ListViewsResponse{}
	for _, v := range views {
		resp.Views = append(resp.Views, savedViewPB(v))
	}
	if next > 0 {
		resp.NextPageToken = encodeToken(pageToken{Query: fp, Offset: next})
	}
	return resp, nil
}

// GetView implements pb.ViewServiceServer.
func (s *ViewServer) GetView(ctx context.Context, req *pb.GetViewRequest) (*pb.GetViewResponse, error) {
	const m = "GetView"
	ctx, cancel, _ := s.call(ctx, m, false)
	defer cancel()
	v, err := s.views.GetView(ctx, graph.ViewName(req.GetName()))
	if err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	return &pb.GetViewResponse{View: savedViewPB(v)}, nil
}

// CreateView implements pb.ViewServiceServer.
func (s *ViewServer) CreateView(ctx context.Context, req *pb.CreateViewRequest) (*pb.CreateViewResponse, error) {
	const m = "CreateView"
	ctx, cancel, err := s.call(ctx, m, true)
	defer cancel()
	if err == nil {
		err = requireView(m, req.GetView())
	}
	if err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	v, err := s.views.CreateView(ctx, savedViewOf(req.GetView()), req.GetViewId())
	if err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	return &pb.CreateViewResponse{View: savedViewPB(v)}, nil
}

// UpdateView implements pb.ViewServiceServer.
func (s *ViewServer) UpdateView(ctx context.Context, req *pb.UpdateViewRequest) (*pb.UpdateViewResponse, error) {
	const m = "UpdateView"
	ctx, cancel, err := s.call(ctx, m, true)
	defer cancel()
	if err == nil {
		err = requireView(m, req.GetView())
	}
	if err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	v, err := s.views.UpdateView(ctx, savedViewOf(req.GetView()), req.GetUpdateMask().GetPaths(), req.GetEtag())
	if err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	return &pb.UpdateViewResponse{View: savedViewPB(v)}, nil
}

// DeleteView implements pb.ViewServiceServer.
func (s *ViewServer) DeleteView(ctx context.Context, req *pb.DeleteViewRequest) (*pb.DeleteViewResponse, error) {
	const m = "DeleteView"
	ctx, cancel, err := s.call(ctx, m, true)
	defer cancel()
	if err == nil {
		err = s.views.DeleteView(ctx, graph.ViewName(req.GetName()), req.GetEtag())
	}
	if err != nil {
		return nil, toStatus(ctx, s.log, m, err)
	}
	return &pb.DeleteViewResponse{Name: req.GetName()}, nil
}

// requireView refuses a request without its view.
func requireView(method string, v *pb.SavedView) error {
	if v != nil {
		return nil
	}
	var vs graph.Violations
	vs.Add("view", "required")
	return vs.Err(method, "invalid request")
}

// savedViewOf is the view a request gives: the fields a caller sets, and its name (for an update).
func savedViewOf(p *pb.SavedView) graph.SavedView {
	v := graph.SavedView{Name: graph.ViewName(p.GetName()), Title: p.GetTitle(), Description: p.GetDescription(), Query: p.GetQuery(),
		Story: p.GetStory(), StoryOrder: p.GetStoryOrder()}
	for _, n := range p.GetNotes() {
		v.Notes = append(v.Notes, graph.ViewNote{Target: n.GetTarget(), Text: n.GetText()})
	}
	return v
}

func savedViewPB(v graph.SavedView) *pb.SavedView {
	out := &pb.SavedView{Name: string(v.Name), Title: v.Title, Description: v.Description, Query: v.Query, Story: v.Story,
		StoryOrder: v.StoryOrder, CreatePrincipal: v.CreatedBy, CreateTime: timestamppb.New(v.Created),
		UpdatePrincipal: v.UpdatedBy, UpdateTime: timestamppb.New(v.Updated), Etag: v.Etag}
	for _, n := range v.Notes {
		out.Notes = append(out.Notes, &pb.ViewNote{Target: n.Target, Text: n.Text})
	}
	return out
}
