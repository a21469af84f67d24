package cosmos

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"go.opentelemetry.io/otel/trace"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/store"
)

// CredentialManagedIdentity is the Credential value (the CosmosDB__credential
// app setting the Cosmos DB trigger reads too) that selects a managed
// identity.
const CredentialManagedIdentity = "managedidentity"

// Config says how to reach the account and which containers to expect.
type Config struct {
	// Endpoint is the account endpoint, https://<account>.documents.azure.com:443/.
	Endpoint string
	// Key is an account key. Set it for emulators only: with a key, Open
	// creates the database and missing containers. Without one, Open
	// authenticates with Microsoft Entra ID and creates nothing.
	Key string
	// Credential is CredentialManagedIdentity or empty. Managed identity is
	// used when it is set or ClientID is; otherwise DefaultAzureCredential
	// (environment, workload identity, managed identity, Azure CLI,
	// Azure Developer CLI), which is what a developer machine needs.
	Credential string
	// ClientID is the client id of a user-assigned managed identity.
	ClientID string
	// Database is the database name.
	Database string
	// Containers are created (with a key) or verified (with Entra ID).
	Containers []store.ContainerSpec
	// ClientOptions tune the azcosmos client (transport, retries); nil
	// means the SDK defaults. Tests use it to install a transport.
	ClientOptions *azcosmos.ClientOptions
	// Timeout, when positive, is the deadline of every operation, the
	// SDK's own retries included (a caller's earlier deadline still wins).
	Timeout time.Duration
	// TracerProvider, when set, receives a span for every SDK operation.
	TracerProvider trace.TracerProvider
	// ProbeContainer is the container Ping point-reads; empty means the
	// first of Containers.
	ProbeContainer string

	// credential replaces the azidentity credential, for tests.
	credential azcore.TokenCredential
}

// Store is the Cosmos DB store. It is safe for concurrent use.
type Store struct {
	client   *azcosmos.Client
	db       *azcosmos.DatabaseClient
	database string

	// probe is the container Ping point-reads, "" when there is none.
	probe string
	// answered is when the service last answered a request (UnixNano).
	answered *atomic.Int64

	mu         sync.Mutex
	containers map[string]*container
}

// pingFresh is how recent an answer from the service must be for Ping to
// trust it instead of sending its own read: an instance serving traffic
// sends no probe at all, an idle one at most one read every pingFresh.
const pingFresh = 30 * time.Second

// probeID is the id Ping reads; no document has it, so the read is a
// 404, which proves the account serves data requests as well as a found
// document would.
const probeID = "health-probe"

var _ store.Store = (*Store)(nil)

// checkSpec checks that every partition key path is one the adapter
// supports: one top-level property, so that it can be named in SQL as
// c.<name>.
func checkSpec(spec store.ContainerSpec) error {
	if spec.Name == "" {
		return errors.New("a container has no name")
	}
	if n := len(spec.PartitionKeyPaths); n < 1 || n > 3 {
		return fmt.Errorf("container %s: %d partition key paths, want 1 to 3", spec.Name, n)
	}
	for _, p := range spec.PartitionKeyPaths {
		if !(strings.HasPrefix(p, "/") && store.IsFieldName(p[1:])) {
			return fmt.Errorf("container %s: partition key path %q is not a top-level property path like /userId", spec.Name, p)
		}
	}
	return nil
}

// Open connects to the account and warms up: after it returns, the data
// path makes no container-metadata requests. See Config for what it creates
// or verifies.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if err := checkConfig(cfg); err != nil {
		return nil, store.Permanent(err)
	}
	if cfg.ClientOptions == nil || cfg.ClientOptions.Transport == nil {
		if err := reachable(ctx, cfg.Endpoint); err != nil {
			return nil, err
		}
	}
	answered := new(atomic.Int64)
	opts := clientOptions(cfg.ClientOptions, cfg.Timeout, answered)
	if cfg.TracerProvider != nil {
		opts.TracingProvider = tracingProvider(cfg.TracerProvider)
	}
	client, err := newClient(cfg, opts)
	if err != nil {
		return nil, store.Permanent(err)
	}
	db, err := client.NewDatabase(cfg.Database)
	if err != nil {
		client.Close()
		return nil, store.Permanent(fmt.Errorf("cosmos: %w", err))
	}
	s := &Store{client: client, db: db, database: cfg.Database, probe: cfg.ProbeContainer, answered: answered, containers: map[string]*container{}}
	if s.probe == "" && len(cfg.Containers) > 0 {
		s.probe = cfg.Containers[0].Name
	}
	if cfg.Key != "" {
		err = s.provision(ctx, cfg.Containers)
	} else {
		err = s.verify(ctx, cfg.Containers)
	}
	if err != nil {
		client.Close()
		return nil, err
	}
	return s, nil
}

// reachable dials the endpoint once, within ctx, so that an endpoint that
// refuses connections or does not resolve fails at once with that cause:
// the SDK's first account read retries such failures for seconds and does
// not stop when its context ends. A custom transport (tests) decides for
// itself what the network is, so Open skips this under one.
func reachable(ctx context.Context, endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || u.Hostname() == "" {
		return store.Permanent(fmt.Errorf("cosmos: endpoint %q is not a URL like https://<account>.documents.azure.com:443/", endpoint))
	}
	port := u.Port()
	if port == "" {
		port = "443"
		if u.Scheme == "http" {
			port = "80"
		}
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		return fmt.Errorf("cosmos: cannot reach %s: %w", endpoint, err)
	}
	return c.Close()
}

// checkConfig finds the configuration mistakes no request is needed for.
func checkConfig(cfg Config) error {
	if cfg.Endpoint == "" {
		return errors.New("cosmos: no account endpoint (set CosmosDB__accountEndpoint or COSMOS_ENDPOINT)")
	}
	if cfg.Database == "" {
		return errors.New("cosmos: no database name (COSMOS_DATABASE)")
	}
	seen := map[string]bool{}
	for _, spec := range cfg.Containers {
		if err := checkSpec(spec); err != nil {
			return fmt.Errorf("cosmos: %w", err)
		}
		if seen[spec.Name] {
			return fmt.Errorf("cosmos: container %s is listed twice", spec.Name)
		}
		seen[spec.Name] = true
	}
	return nil
}

// clientOptions copies o and adds the policies that bound every operation
// by timeout (when positive), send background calls at low priority, meter
// every request and note in answered when the service last answered.
func clientOptions(o *azcosmos.ClientOptions, timeout time.Duration, answered *atomic.Int64) *azcosmos.ClientOptions {
	var c azcosmos.ClientOptions
	if o != nil {
		c = *o
	}
	c.PerCallPolicies = append(slices.Clone(c.PerCallPolicies), priorityPolicy{})
	if timeout > 0 {
		c.PerCallPolicies = append(c.PerCallPolicies, deadlinePolicy(timeout))
	}
	c.PerRetryPolicies = append(slices.Clone(c.PerRetryPolicies), meterPolicy{}, answerPolicy{answered})
	return &c
}

// answerPolicy notes the time of every answer that shows the account
// serving requests: a success, or a refusal about the document itself (not
// found, conflict, precondition failed). A transport error, a server error
// or an authorization failure forgets the last one, so that the next Ping
// asks for itself; throttling changes nothing.
type answerPolicy struct{ last *atomic.Int64 }

func (a answerPolicy) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	switch {
	case err != nil:
		a.last.Store(0)
	case resp.StatusCode < 400, resp.StatusCode == http.StatusNotFound,
		resp.StatusCode == http.StatusConflict, resp.StatusCode == http.StatusPreconditionFailed:
		a.last.Store(time.Now().UnixNano())
	case resp.StatusCode != http.StatusTooManyRequests:
		a.last.Store(0)
	}
	return resp, err
}

// deadlinePolicy bounds one operation, retries included: it runs once per
// call, before the SDK's retry loops.
type deadlinePolicy time.Duration

func (d deadlinePolicy) Do(req *policy.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Raw().Context(), time.Duration(d))
	defer cancel()
	return req.WithContext(ctx).Next()
}

func newClient(cfg Config, opts *azcosmos.ClientOptions) (*azcosmos.Client, error) {
	if cfg.Key != "" {
		cred, err := azcosmos.NewKeyCredential(cfg.Key)
		if err != nil {
			// Never include the key in the message.
			return nil, errors.New("cosmos: COSMOS_KEY is not a valid account key (base64)")
		}
		client, err := azcosmos.NewClientWithKey(cfg.Endpoint, cred, opts)
		if err != nil {
			return nil, fmt.Errorf("cosmos: endpoint %s: %w", cfg.Endpoint, err)
		}
		return client, nil
	}
	cred := cfg.credential
	if cred == nil {
		var err error
		if cred, err = entraCredential(cfg, opts); err != nil {
			return nil, err
		}
	}
	client, err := azcosmos.NewClient(cfg.Endpoint, cred, opts)
	if err != nil {
		return nil, fmt.Errorf("cosmos: endpoint %s: %w", cfg.Endpoint, err)
	}
	return client, nil
}

// entraCredential picks the azidentity credential: a managed identity in
// Azure (user-assigned when ClientID is set), developer credentials locally.
func entraCredential(cfg Config, opts *azcosmos.ClientOptions) (azcore.TokenCredential, error) {
	useMI := cfg.ClientID != ""
	switch {
	case strings.EqualFold(cfg.Credential, CredentialManagedIdentity):
		useMI = true
	case cfg.Credential != "":
		return nil, fmt.Errorf("cosmos: CosmosDB__credential is %q; want %s or nothing", cfg.Credential, CredentialManagedIdentity)
	}
	co := azcore.ClientOptions{Transport: opts.Transport}
	if useMI {
		o := &azidentity.ManagedIdentityCredentialOptions{ClientOptions: co}
		if cfg.ClientID != "" {
			o.ID = azidentity.ClientID(cfg.ClientID)
		}
		cred, err := azidentity.NewManagedIdentityCredential(o)
		if err != nil {
			return nil, fmt.Errorf("cosmos: managed identity: %w", err)
		}
		return cred, nil
	}
	cred, err := azidentity.NewDefaultAzureCredential(&azidentity.DefaultAzureCredentialOptions{ClientOptions: co})
	if err != nil {
		return nil, fmt.Errorf("cosmos: developer credentials: %w", err)
	}
	return cred, nil
}

func definition(spec store.ContainerSpec) azcosmos.ContainerProperties {
	props := azcosmos.ContainerProperties{
		ID: spec.Name,
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{
			Kind:    azcosmos.PartitionKeyKindHash,
			Paths:   slices.Clone(spec.PartitionKeyPaths),
			Version: 2,
		},
	}
	if len(spec.PartitionKeyPaths) > 1 {
		props.PartitionKeyDefinition.Kind = azcosmos.PartitionKeyKindMultiHash
	}
	if spec.DefaultTTL != nil {
		ttl := int32(*spec.DefaultTTL)
		props.DefaultTimeToLive = &ttl
	}
	props.IndexingPolicy = indexingPolicy(spec.Indexing)
	return props
}

// indexingPolicy renders a policy as Cosmos DB's: a range index on each
// property (/name/?) and on the elements of each array property
// (/name/[]/?), every other path excluded (/*), and the composite
// indexes. nil keeps the default, every path.
func indexingPolicy(p *store.IndexingPolicy) *azcosmos.IndexingPolicy {
	if p == nil {
		return nil
	}
	ip := &azcosmos.IndexingPolicy{
		Automatic:     true,
		IndexingMode:  azcosmos.IndexingModeConsistent,
		ExcludedPaths: []azcosmos.ExcludedPath{{Path: "/*"}},
	}
	for _, f := range p.Paths {
		ip.IncludedPaths = append(ip.IncludedPaths, azcosmos.IncludedPath{Path: "/" + f + "/?"})
	}
	for _, f := range p.Arrays {
		ip.IncludedPaths = append(ip.IncludedPaths, azcosmos.IncludedPath{Path: "/" + f + arrayElements})
	}
	for _, ci := range p.Composite {
		var idx []azcosmos.CompositeIndex
		for _, o := range ci {
			order := azcosmos.CompositeIndexAscending
			if o.Desc {
				order = azcosmos.CompositeIndexDescending
			}
			idx = append(idx, azcosmos.CompositeIndex{Path: "/" + o.Field, Order: order})
		}
		ip.CompositeIndexes = append(ip.CompositeIndexes, idx)
	}
	return ip
}

// arrayElements is the tail of an included path that indexes an array's
// elements.
const arrayElements = "/[]/?"

// indexingOf reads a container's indexing policy back: nil when it indexes
// every path (or the server does not say), otherwise the top-level
// properties and arrays it includes and its composite indexes.
func indexingOf(ip *azcosmos.IndexingPolicy) *store.IndexingPolicy {
	if ip == nil || len(ip.IncludedPaths) == 0 {
		return nil
	}
	p := &store.IndexingPolicy{}
	for _, inc := range ip.IncludedPaths {
		path := strings.TrimPrefix(inc.Path, "/")
		if name, ok := strings.CutSuffix(path, arrayElements); ok && !strings.ContainsAny(name, "/*") {
			p.Arrays = append(p.Arrays, name)
			continue
		}
		name, ok := strings.CutSuffix(path, "/?")
		if !ok || strings.ContainsAny(name, "/*") {
			return nil // a wildcard or nested path: treat as indexing everything
		}
		p.Paths = append(p.Paths, name)
	}
	for _, ci := range ip.CompositeIndexes {
		var idx []store.Order
		for _, c := range ci {
			idx = append(idx, store.Order{Field: strings.TrimPrefix(c.Path, "/"), Desc: c.Order == azcosmos.CompositeIndexDescending})
		}
		p.Composite = append(p.Composite, idx)
	}
	return p
}

// provision creates the database and the missing containers (key auth, for
// emulators), then reads every container once.
func (s *Store) provision(ctx context.Context, specs []store.ContainerSpec) error {
	_, err := s.client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: s.database}, nil)
	if err != nil && statusOf(err) != http.StatusConflict {
		return fmt.Errorf("cosmos: creating database %s: %w", s.database, err)
	}
	for _, spec := range specs {
		_, err := s.db.CreateContainer(ctx, definition(spec), nil)
		if err != nil && statusOf(err) != http.StatusConflict {
			return fmt.Errorf("cosmos: creating container %s in database %s: %w", spec.Name, s.database, err)
		}
	}
	return s.verify(ctx, specs)
}

// verify reads every container once, checks its partition key paths and
// caches its client and properties. It reports everything that is missing or
// different in one error.
func (s *Store) verify(ctx context.Context, specs []store.ContainerSpec) error {
	var problems []string
	dbChecked, keyChanged := false, false
	for _, spec := range specs {
		c, err := s.open(ctx, spec.Name)
		if err != nil {
			switch statusOf(err) {
			case http.StatusNotFound:
				if !dbChecked {
					dbChecked = true
					if _, derr := s.db.Read(ctx, nil); statusOf(derr) == http.StatusNotFound {
						return store.Permanent(fmt.Errorf("cosmos: database %s does not exist in account %s; nothing is created with Entra ID auth: provision it (infra/bicep)", s.database, s.client.Endpoint()))
					}
				}
				problems = append(problems, fmt.Sprintf("container %s does not exist (want partition key %s)", spec.Name, strings.Join(spec.PartitionKeyPaths, ",")))
			case http.StatusUnauthorized, http.StatusForbidden:
				return fmt.Errorf("cosmos: not allowed to read container %s in database %s: grant the identity a Cosmos DB data-plane role (Built-in Data Contributor) on the database: %w", spec.Name, s.database, err)
			default:
				return fmt.Errorf("cosmos: reading container %s in database %s: %w", spec.Name, s.database, err)
			}
			continue
		}
		if !slices.Equal(c.spec.PartitionKeyPaths, spec.PartitionKeyPaths) {
			keyChanged = true
			problems = append(problems, fmt.Sprintf("container %s has partition key %s, want %s (a partition key cannot change: recreate the container)",
				spec.Name, strings.Join(c.spec.PartitionKeyPaths, ","), strings.Join(spec.PartitionKeyPaths, ",")))
		}
		if spec.DefaultTTL != nil && c.spec.DefaultTTL == nil {
			problems = append(problems, fmt.Sprintf("container %s has time to live off; turn it on (default -1) so that version documents expire", spec.Name))
		}
	}
	if len(problems) > 0 {
		err := fmt.Errorf("cosmos: database %s: %s", s.database, strings.Join(problems, "; "))
		if keyChanged {
			err = fmt.Errorf("%w (%w)", err, store.ErrPartitionKeyChanged)
		}
		return store.Permanent(err)
	}
	return nil
}

// open reads a container's properties once and caches its client.
func (s *Store) open(ctx context.Context, name string) (*container, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.containers[name]; ok {
		return c, nil
	}
	cc, err := s.db.NewContainer(name)
	if err != nil {
		return nil, err
	}
	resp, err := cc.Read(ctx, nil)
	if err != nil {
		return nil, err
	}
	props := resp.ContainerProperties
	if props == nil {
		return nil, fmt.Errorf("container %s: no properties in the response", name)
	}
	spec := store.ContainerSpec{Name: name, PartitionKeyPaths: slices.Clone(props.PartitionKeyDefinition.Paths)}
	if props.DefaultTimeToLive != nil {
		ttl := int(*props.DefaultTimeToLive)
		spec.DefaultTTL = &ttl
	}
	spec.Indexing = indexingOf(props.IndexingPolicy)
	if err := checkSpec(spec); err != nil {
		return nil, err
	}
	c := &container{cc: cc, spec: spec}
	s.containers[name] = c
	return c, nil
}

// Container returns the named container: from the cache for the containers
// Open warmed up, otherwise after one read of its properties.
func (s *Store) Container(ctx context.Context, name string) (store.Container, error) {
	c, err := s.open(ctx, name)
	if err != nil {
		if statusOf(err) == http.StatusNotFound {
			return nil, todo.Errorf(todo.NotFound, "container %s does not exist", name)
		}
		return nil, mapError(err, "container "+name)
	}
	return c, nil
}

// Ping checks, for health checks, that the account serves data requests.
// When the service answered some request within pingFresh it sends
// nothing; otherwise it point-reads probeID in the probe container, where
// not found is a healthy answer. It never reads the database or container
// metadata: Cosmos DB throttles those requests apart from data requests,
// and a probe from every instance would spend that budget.
func (s *Store) Ping(ctx context.Context) error {
	if time.Since(time.Unix(0, s.answered.Load())) < pingFresh {
		return nil
	}
	if s.probe == "" {
		return errors.New("cosmos: no container to probe")
	}
	c, err := s.open(ctx, s.probe)
	if err != nil {
		return mapError(err, "container "+s.probe)
	}
	key := make(store.PartitionKey, len(c.spec.PartitionKeyPaths))
	for i := range key {
		key[i] = probeID
	}
	_, err = c.cc.ReadItem(ctx, partitionKey(key), probeID, nil)
	if statusOf(err) == http.StatusNotFound {
		return nil
	}
	return mapError(err, "container "+s.probe)
}

// Close releases the client.
func (s *Store) Close() error {
	s.client.Close()
	return nil
}

// statusOf returns the HTTP status of a Cosmos DB error, 0 for others.
func statusOf(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}
