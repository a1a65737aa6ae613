package analyze

import (
	"cmp"
	"slices"
	"strings"

	"checkpoint-explorer/backend/model"
)

// graph indexes a job's vertices so the hot loops work on small integers
// instead of strings: vertex i is vertices[i], in job order, followed by any
// vertex the checkpoints mention that the job does not list (first seen
// first, in the order the checkpoints are analysed).
type graph struct {
	vertices []vertexInfo
	index    map[string]int
	hasEdges bool
	// rank is the vertex's depth from the sources (longest path); vertices
	// on a cycle or unreachable from a source come after all others.
	rank []int
	// ancestors lists, per vertex, every vertex upstream of it (transitively).
	ancestors [][]int
	// inputs lists, per vertex, its direct upstream vertices (barrier path).
	inputs [][]input
}

// input is one edge into a vertex: where it comes from, and whether each
// subtask reads only the upstream subtask of its own index (Flink FORWARD
// between equal parallelisms) rather than every upstream subtask.
type input struct {
	v       int
	forward bool
}

type vertexInfo struct {
	id, name string
}

// VertexRef names one vertex.
type VertexRef struct {
	VertexID   string `json:"vertex_id"`
	VertexName string `json:"vertex_name,omitempty"`
}

func newGraph(job model.Job, cps []model.Checkpoint, order []int) *graph {
	g := newJobGraph(job)
	for _, i := range order {
		g.addTasks(&cps[i])
	}
	return g
}

// newJobGraph indexes the job's vertices, then any vertex its edges name
// that the vertex list lacks, and derives ranks and ancestors from the edges.
// Vertices met later in checkpoints (addTasks) have no edges: they are
// sources of their own, rank 0 with no ancestors.
func newJobGraph(job model.Job) *graph {
	g := &graph{index: make(map[string]int, len(job.Vertices))}
	for _, v := range job.Vertices {
		g.add(v.ID, v.Name)
	}
	for _, e := range job.Edges {
		g.add(e.Source, "")
		g.add(e.Target, "")
	}
	n := len(g.vertices)
	children := make([][]int, n)
	parents := make([][]int, n)
	g.inputs = make([][]input, n)
	par := map[string]int{}
	for _, v := range job.Vertices {
		par[v.ID] = v.Parallelism
	}
	for _, e := range job.Edges {
		s, okS := g.index[e.Source]
		t, okT := g.index[e.Target]
		if !okS || !okT || s == t {
			continue
		}
		g.hasEdges = true
		children[s] = append(children[s], t)
		parents[t] = append(parents[t], s)
		fwd := strings.EqualFold(e.ShipStrategy, "FORWARD") && par[e.Source] == par[e.Target] && par[e.Source] > 0
		g.inputs[t] = append(g.inputs[t], input{v: s, forward: fwd})
	}
	g.rank = topoRank(children, parents)
	g.ancestors = make([][]int, n)
	if g.hasEdges {
		seen := make([]int, n) // stamp per walk, so one slice serves every vertex
		for v := range n {
			stack := append([]int(nil), parents[v]...)
			for len(stack) > 0 {
				u := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if seen[u] == v+1 || u == v {
					continue
				}
				seen[u] = v + 1
				g.ancestors[v] = append(g.ancestors[v], u)
				stack = append(stack, parents[u]...)
			}
			slices.Sort(g.ancestors[v])
		}
	}
	return g
}

// addTasks indexes the vertices a checkpoint mentions that the graph does
// not know yet, in the checkpoint's task order.
func (g *graph) addTasks(c *model.Checkpoint) {
	for t := range c.Tasks {
		id := c.Tasks[t].VertexID
		if _, ok := g.index[id]; ok || id == "" {
			continue
		}
		g.add(id, "")
		g.rank = append(g.rank, 0)
		g.ancestors = append(g.ancestors, nil)
		g.inputs = append(g.inputs, nil)
	}
}

func (g *graph) add(id, name string) {
	if id == "" {
		return
	}
	if _, ok := g.index[id]; ok {
		return
	}
	g.index[id] = len(g.vertices)
	g.vertices = append(g.vertices, vertexInfo{id: id, name: name})
}

func (g *graph) ref(v int) VertexRef {
	return VertexRef{VertexID: g.vertices[v].id, VertexName: g.vertices[v].name}
}

// label names vertex v in a sentence: its name, or its id without one.
func (g *graph) label(v int) string { return cmp.Or(g.vertices[v].name, g.vertices[v].id) }

// before orders vertices upstream first, then in job order.
func (g *graph) before(a, b int) bool {
	if g.rank[a] != g.rank[b] {
		return g.rank[a] < g.rank[b]
	}
	return a < b
}

// cycleRank puts vertices on a cycle after every other, however many
// vertices are added later.
const cycleRank = 1 << 30

// topoRank is each vertex's longest distance from a source (Kahn's
// algorithm); vertices left over (cycles) get a rank past every other.
func topoRank(children, parents [][]int) []int {
	n := len(children)
	rank := make([]int, n)
	indeg := make([]int, n)
	for v := range n {
		indeg[v] = len(parents[v])
	}
	queue := make([]int, 0, n)
	for v := range n {
		if indeg[v] == 0 {
			queue = append(queue, v)
		}
	}
	done := 0
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		done++
		for _, c := range children[v] {
			rank[c] = max(rank[c], rank[v]+1)
			if indeg[c]--; indeg[c] == 0 {
				queue = append(queue, c)
			}
		}
	}
	if done < n {
		for v := range n {
			if indeg[v] > 0 {
				rank[v] = cycleRank
			}
		}
	}
	return rank
}
