// Package config reads the handler's settings from the environment (Functions
// app settings are environment variables), applies defaults and validates
// them, so that a bad setting stops start-up with one line naming it.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/todoaudit/todo"
	"github.com/todoaudit/todo/auth"
	"github.com/todoaudit/todo/governance"
	"github.com/todoaudit/todo/partition"
	"github.com/todoaudit/todo/transparency"
)

// Setting documents one environment variable the handler reads.
type Setting struct {
	Name    string
	Default string
	Doc     string
}

// The settings, each declared once and read by these names, so that a
// misspelt one does not compile; a default that another package owns
// comes from it.
var (
	customHandlerPort = Setting{"FUNCTIONS_CUSTOMHANDLER_PORT", "", "set by the Functions host; its presence means host mode (listen on 127.0.0.1:PORT)"}
	listenAddr        = Setting{"LISTEN_ADDR", "127.0.0.1:7071", "standalone listen address"}
	listenFDs         = Setting{"LISTEN_FDS", "", "1: serve the listening socket inherited as file descriptor 3 (systemd socket activation) instead of binding an address"}
	listenPID         = Setting{"LISTEN_PID", "", "with LISTEN_FDS: the process the socket is for; another process's socket is not taken"}
	dataDir           = Setting{"DATA_DIR", "./.data", "embedded store directory"}
	storeKind         = Setting{"STORE", "", "embedded or cosmos; default cosmos when a Cosmos endpoint is set, else embedded"}
	cosmosEndpoint    = Setting{"CosmosDB__accountEndpoint", "", "Cosmos DB endpoint; the same setting the Cosmos DB trigger reads"}
	cosmosEndpointAlt = Setting{"COSMOS_ENDPOINT", "", "alternative to CosmosDB__accountEndpoint"}
	cosmosCredential  = Setting{"CosmosDB__credential", "", "managedidentity to use a managed identity (as the trigger does)"}
	cosmosClientID    = Setting{"CosmosDB__clientId", "", "client id of the user-assigned managed identity"}
	azureClientID     = Setting{"AZURE_CLIENT_ID", "", "client id of the user-assigned managed identity (azidentity's own setting)"}
	cosmosConnString  = Setting{"CosmosDB", "", "connection string AccountEndpoint=…;AccountKey=…; for the emulator: the setting the Cosmos DB trigger reads; key auth, missing containers are created at start"}
	cosmosKey         = Setting{"COSMOS_KEY", "", "account key, for emulators only; creates missing containers at start"}
	allowRemoteKey    = Setting{"COSMOS_ALLOW_REMOTE_KEY", "false", "true lets a key (CosmosDB or COSMOS_KEY) go to an account that is not on this machine"}
	database          = Setting{"COSMOS_DATABASE", "todoapp", "database name"}
	todoContainer     = Setting{"COSMOS_TODO_CONTAINER", partition.DefaultContainerNames.Todos, "todo container name"}
	auditContainer    = Setting{"COSMOS_AUDIT_CONTAINER", partition.DefaultContainerNames.Audit, "audit container name"}
	leasesContainer   = Setting{"COSMOS_LEASES_CONTAINER", partition.DefaultContainerNames.Leases, "leases container name (partition key /id)"}
	partitionScheme   = Setting{"PARTITION_SCHEME", partition.Hierarchical, "hierarchical, category or synthetic; fixed when the todo container is created"}
	syntheticBuckets  = Setting{"SYNTHETIC_BUCKETS", strconv.Itoa(partition.DefaultBuckets), "number of logical partitions per user under the synthetic scheme (1-100)"}
	authMode          = Setting{"AUTH_MODE", "", "entra, easyauth, single or dev; default entra when AUTH_ISSUER is set, else easyauth under the host and dev standalone"}
	authIssuer        = Setting{"AUTH_ISSUER", "", "entra: the OpenID provider whose tokens are accepted (https://login.microsoftonline.com/<tenant id>/v2.0)"}
	authAudience      = Setting{"AUTH_AUDIENCE", "", "entra: the aud tokens must carry (the API's application id)"}
	webClientID       = Setting{"AUTH_CLIENT_ID", "", "entra: the application (client) id the web page signs in with (authorization code + PKCE); default AUTH_AUDIENCE"}
	webScope          = Setting{"AUTH_SCOPE", "", "entra: the scope the web page asks for its access token; default <AUTH_AUDIENCE>/.default, with api:// before an audience that is not a URI"}
	devAllowRemote    = Setting{"AUTH_DEV_ALLOW_REMOTE", "false", "true lets AUTH_MODE=dev listen on an address other machines can reach (LISTEN_ADDR not on loopback); anyone who reaches the port can then act as any user, admins included"}
	singleUserID      = Setting{"SINGLE_USER_ID", "owner", "the one user under AUTH_MODE=single"}
	adminUsers        = Setting{"ADMIN_USERS", "", "dev and single: comma-separated user ids allowed on /api/manage (entra and easyauth use the Todo.Admin app role)"}
	maxBodyBytes      = Setting{"MAX_BODY_BYTES", "1048576", "request body limit in bytes (at most 2000000)"}
	maxPayloadBytes   = Setting{"MAX_PAYLOAD_BYTES", "16777216", "payload-mode invocation (trigger batch) limit in bytes, 1 MiB to 256 MiB; under the host at least the largest AuditTrigger batch (docs/audit-pipeline.md)"}
	versionTTL        = Setting{"VERSION_TTL_SECONDS", strconv.Itoa(int(todo.DefaultVersionTTL / time.Second)), "retention of version documents (the audit outbox) in seconds; on the embedded store the audit pump retires each once its record is written"}
	auditRetention    = Setting{"AUDIT_RETENTION_DAYS", "", "days audit records are kept before the reconcile loop purges them (legal holds excepted); unset keeps them forever; at least " + strconv.Itoa(governance.MinRetentionDays)}
	auditPump         = Setting{"AUDIT_PUMP", "on", "on or off: the standalone change-feed pump that feeds AuditTrigger"}
	transparencyLog   = Setting{"TRANSPARENCY_LOG", "on", "on or off: the transparency log of every version, its signed checkpoints and /api/log"}
	logOrigin         = Setting{"LOG_ORIGIN", "todoaudit.local/log", "the transparency log's origin line and signing key name (no spaces or +)"}
	logSigningKey     = Setting{"LOG_SIGNING_KEY", "", "the log's Ed25519 signing key (a note signer key PRIVATE+KEY+origin+hash+data); empty: DATA_DIR/log-signing.key, generated at first start"}
	logSigningKeyID   = Setting{"LOG_SIGNING_KEY_ID", "", "a Key Vault key URL (https://<vault>/keys/<name>[/<version>], EC P-256) the log signs with through the app's identity, instead of LOG_SIGNING_KEY"}
	logAnchorURL      = Setting{"LOG_ANCHOR_URL", "", "a Blob container URL (https://<account>.blob.core.windows.net/<container>, version-level immutability) every checkpoint is anchored in through the app's identity, instead of LOG_ANCHOR_DIR"}
	logAnchorDir      = Setting{"LOG_ANCHOR_DIR", "", "write-once directory every signed checkpoint is anchored in; default DATA_DIR/log-anchors: point it outside the store's reach"}
	logWitnessPolicy  = Setting{"LOG_WITNESS_POLICY", "", "a C2SP tlog-policy file naming the witnesses (witness NAME VKEY URL) every checkpoint is submitted to, and their quorum; empty: no witnesses"}
	logWitnessPublish = Setting{"LOG_WITNESS_PUBLISH", "always", "always: publish each checkpoint with the cosignatures it got; quorum: only once it carries the policy's quorum"}
	logEd25519Secret  = Setting{"LOG_ED25519_SECRET_ID", "", "a Key Vault secret URL (https://<vault>/secrets/<name>[/<version>]) holding an Ed25519 note signer key that signs every checkpoint beside LOG_SIGNING_KEY_ID's, read through the app's identity"}
	logLevel          = Setting{"LOG_LEVEL", "info", "debug, info, warn or error"}
	storeOpenTimeout  = Setting{"STORE_OPEN_TIMEOUT", "60s", "how long start-up keeps retrying to open the store before it exits 1 (a duration like 60s, or seconds)"}
	storeTimeout      = Setting{"STORE_TIMEOUT", "10s", "deadline of every store call, the SDK's own retries included; a request's store work as a whole gets the same"}
	shutdownTimeout   = Setting{"SHUTDOWN_TIMEOUT", "20s", "how long SIGTERM waits for in-flight requests"}
	corsOrigins       = Setting{"CORS_ALLOWED_ORIGINS", "", "comma-separated exact origins (https://app.example.com) whose browser pages may call the API, or * for any; empty: none"}
	corsCredentials   = Setting{"CORS_ALLOW_CREDENTIALS", "false", "true lets those pages send cookies (an App Service Authentication session); not with CORS_ALLOWED_ORIGINS=*"}
	// Read by the OpenTelemetry SDK itself; listed so that Bicep and the
	// local settings example are checked against them.
	otelEndpoint        = Setting{"OTEL_EXPORTER_OTLP_ENDPOINT", "", "OTLP/HTTP base URL traces and metrics are exported to; unset: nothing is exported"}
	otelTracesEndpoint  = Setting{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "", "OTLP/HTTP URL for traces only (overrides the base URL)"}
	otelMetricsEndpoint = Setting{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "", "OTLP/HTTP URL for metrics only (overrides the base URL)"}
	otelServiceName     = Setting{"OTEL_SERVICE_NAME", "todoaudit-handler", "service.name of the exported telemetry"}
)

// Settings lists every environment variable the handler reads. The
// infrastructure tests check that Bicep and local.settings.json.example
// agree with it.
var Settings = []Setting{
	customHandlerPort, listenAddr, listenFDs, listenPID, dataDir, storeKind, cosmosEndpoint, cosmosEndpointAlt, cosmosCredential, cosmosClientID, azureClientID, cosmosConnString, cosmosKey, allowRemoteKey, database, todoContainer, auditContainer, leasesContainer, partitionScheme, syntheticBuckets, authMode, authIssuer, authAudience, devAllowRemote, webClientID, webScope, singleUserID, adminUsers, maxBodyBytes, maxPayloadBytes, versionTTL, auditRetention, auditPump, transparencyLog, logOrigin, logSigningKey, logSigningKeyID, logAnchorURL, logAnchorDir, logWitnessPolicy, logWitnessPublish, logEd25519Secret, logLevel, storeOpenTimeout, storeTimeout, shutdownTimeout, corsOrigins, corsCredentials, otelEndpoint, otelTracesEndpoint, otelMetricsEndpoint, otelServiceName,
}

// SetByLauncher reports whether the named setting is set by whatever
// starts the process (the Functions host, systemd), never by hand, so
// that no settings file lists it.
func SetByLauncher(name string) bool {
	return name == customHandlerPort.Name || name == listenFDs.Name || name == listenPID.Name
}

// Mode says whether the handler runs under the Functions host.
type Mode string

// The modes.
const (
	Standalone Mode = "standalone"
	Host       Mode = "host"
)

// Config is the validated configuration.
type Config struct {
	Mode       Mode
	ListenAddr string
	// InheritedListener says the socket to serve is file descriptor 3,
	// bound by whoever started the process (systemd socket activation, or
	// a test that must know the address before the process runs).
	InheritedListener bool
	DataDir           string
	Store             string // "embedded" or "cosmos"

	CosmosEndpoint   string
	CosmosCredential string
	CosmosClientID   string
	CosmosKey        string
	Database         string
	TodoContainer    string
	AuditContainer   string
	LeasesContainer  string

	Scheme           string
	SyntheticBuckets int
	Auth             auth.Settings
	MaxBodyBytes     int64
	MaxPayloadBytes  int64
	VersionTTL       time.Duration
	// AuditRetention is how long audit records are kept; 0 keeps them
	// forever.
	AuditRetention time.Duration
	AuditPump      bool
	LogLevel       string

	// The transparency log: whether there is one, its origin, its signing
	// key (an Ed25519 key, or a Key Vault key's URL; neither: the key file
	// in DataDir) and its anchors (a Blob container's URL, else a
	// directory).
	TransparencyLog bool
	LogOrigin       string
	LogSigningKey   string
	LogSigningKeyID string
	LogAnchorURL    string
	LogAnchorDir    string
	// LogEd25519SecretID is the Key Vault secret of an Ed25519 key that
	// signs beside the Key Vault key, for witnesses.
	LogEd25519SecretID string
	// LogWitnesses is the witness policy, nil without one;
	// LogPublishWithQuorum holds back checkpoints without its quorum.
	LogWitnesses         *transparency.Policy
	LogPublishWithQuorum bool

	StoreOpenTimeout time.Duration
	StoreTimeout     time.Duration
	ShutdownTimeout  time.Duration

	// CORSAllowedOrigins are the origins allowed to call from a browser:
	// exact origins, or the one entry "*".
	CORSAllowedOrigins   []string
	CORSAllowCredentials bool

	// WebClientID and WebScope are what the web page signs in with under
	// entra: its application id and the scope of the access token it asks
	// for.
	WebClientID string
	WebScope    string
}

// Error names the setting that made loading fail.
type Error struct {
	Setting string
	Problem string
}

func (e *Error) Error() string { return "config: " + e.Setting + ": " + e.Problem }

// Load reads the configuration through lookup (os.LookupEnv in production).
func Load(lookup func(string) (string, bool)) (*Config, error) {
	get := func(s Setting) string {
		if v, ok := lookup(s.Name); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
		return s.Default
	}
	c := &Config{
		Mode:             Standalone,
		ListenAddr:       get(listenAddr),
		DataDir:          get(dataDir),
		CosmosEndpoint:   first(get(cosmosEndpoint), get(cosmosEndpointAlt)),
		CosmosCredential: get(cosmosCredential),
		CosmosClientID:   get(cosmosClientID),
		CosmosKey:        get(cosmosKey),
		Database:         get(database),
		TodoContainer:    get(todoContainer),
		AuditContainer:   get(auditContainer),
		LeasesContainer:  get(leasesContainer),
		Scheme:           get(partitionScheme),
		Auth: auth.Settings{
			Mode:       get(authMode),
			Issuer:     get(authIssuer),
			Audience:   get(authAudience),
			SingleUser: get(singleUserID),
			AdminUsers: auth.ParseUsers(get(adminUsers)),
		},
		LogLevel:    get(logLevel),
		WebClientID: first(get(webClientID), get(authAudience)),
		WebScope:    get(webScope),
	}
	if c.WebScope == "" && c.Auth.Audience != "" {
		c.WebScope = c.Auth.Audience + "/.default"
		if !strings.Contains(c.Auth.Audience, "://") {
			c.WebScope = "api://" + c.WebScope
		}
	}
	for _, step := range []func(*Config, func(Setting) string) error{
		listenSettings, cosmosConnection, storeSettings, schemeSettings, authSettings, limitSettings, auditSettings, logSettings, processSettings, corsSettings,
	} {
		if err := step(c, get); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// listenSettings chooses the mode and the address: the host's port when
// the Functions host launched the handler, else LISTEN_ADDR or an
// inherited socket.
func listenSettings(c *Config, get func(Setting) string) error {
	if port := get(customHandlerPort); port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return &Error{"FUNCTIONS_CUSTOMHANDLER_PORT", fmt.Sprintf("%q is not a TCP port", port)}
		}
		c.Mode = Host
		c.ListenAddr = net.JoinHostPort("127.0.0.1", port)
	} else if _, _, err := net.SplitHostPort(c.ListenAddr); err != nil {
		return &Error{"LISTEN_ADDR", fmt.Sprintf("%q is not host:port", c.ListenAddr)}
	}

	switch n := get(listenFDs); n {
	case "", "0":
	case "1":
		pid := get(listenPID)
		c.InheritedListener = pid == "" || pid == strconv.Itoa(os.Getpid())
	default:
		return &Error{"LISTEN_FDS", fmt.Sprintf("%q: only one inherited socket (1) is served", n)}
	}
	return nil
}

// storeSettings chooses the store and checks what it needs: an endpoint
// for Cosmos DB, a directory for the embedded store, valid resource names.
func storeSettings(c *Config, get func(Setting) string) error {
	c.Store = get(storeKind)
	switch c.Store {
	case "":
		c.Store = "embedded"
		if c.CosmosEndpoint != "" {
			c.Store = "cosmos"
		}
	case "embedded", "cosmos":
	default:
		return &Error{"STORE", fmt.Sprintf("%q is not embedded or cosmos", c.Store)}
	}
	if c.Store == "cosmos" && c.CosmosEndpoint == "" {
		return &Error{"CosmosDB__accountEndpoint", "STORE=cosmos needs a Cosmos DB endpoint (or COSMOS_ENDPOINT)"}
	}
	if c.Store == "embedded" && c.DataDir == "" {
		return &Error{"DATA_DIR", "must not be empty"}
	}
	if c.CosmosCredential != "" && !strings.EqualFold(c.CosmosCredential, "managedidentity") {
		return &Error{"CosmosDB__credential", fmt.Sprintf("%q is not managedidentity", c.CosmosCredential)}
	}
	// With a managed identity, AZURE_CLIENT_ID names the user-assigned one
	// when CosmosDB__clientId does not. Otherwise DefaultAzureCredential
	// reads AZURE_CLIENT_ID itself (it may name a service principal).
	if c.CosmosClientID == "" && c.CosmosCredential != "" {
		c.CosmosClientID = get(azureClientID)
	}
	for _, name := range []struct{ setting, value string }{
		{"COSMOS_DATABASE", c.Database}, {"COSMOS_TODO_CONTAINER", c.TodoContainer},
		{"COSMOS_AUDIT_CONTAINER", c.AuditContainer}, {"COSMOS_LEASES_CONTAINER", c.LeasesContainer},
	} {
		if !validResourceName(name.value) {
			return &Error{name.setting, fmt.Sprintf("%q is not a valid Cosmos DB resource name", name.value)}
		}
	}
	return nil
}

// schemeSettings reads the partition scheme, whose rules the partition
// package owns.
func schemeSettings(c *Config, get func(Setting) string) error {
	// The partition package owns the rules of its settings.
	if err := partition.CheckName(c.Scheme); err != nil {
		return &Error{partitionScheme.Name, todo.Message(err)}
	}
	buckets, err := strconv.Atoi(get(syntheticBuckets))
	if err != nil {
		return &Error{syntheticBuckets.Name, fmt.Sprintf("%q is not a whole number", get(syntheticBuckets))}
	}
	if err := partition.CheckBuckets(buckets); err != nil {
		return &Error{syntheticBuckets.Name, todo.Message(err)}
	}
	c.SyntheticBuckets = buckets
	return nil
}

// authSettings resolves the authentication mode and refuses dev mode on an
// address other machines can reach.
func authSettings(c *Config, get func(Setting) string) error {
	var authErr *auth.SettingError
	if errors.As(c.Auth.Resolve(c.Mode == Host), &authErr) {
		return &Error{authErr.Setting, authErr.Problem}
	}
	return devReach(c, get)
}

// limitSettings reads the size limits of bodies and payloads, and how long
// version documents and audit records are kept.
func limitSettings(c *Config, get func(Setting) string) error {
	maxBody, err := intSetting(get, maxBodyBytes, 1024, 2_000_000)
	if err != nil {
		return err
	}
	c.MaxBodyBytes = int64(maxBody)
	maxPayload, err := intSetting(get, maxPayloadBytes, 1<<20, 256<<20)
	if err != nil {
		return err
	}
	c.MaxPayloadBytes = int64(maxPayload)
	ttl, err := intSetting(get, versionTTL, 60, 10*365*24*3600)
	if err != nil {
		return err
	}
	c.VersionTTL = time.Duration(ttl) * time.Second
	if v := get(auditRetention); v != "" {
		days, err := strconv.Atoi(v)
		switch {
		case err != nil || days < 1 || days > 100*366:
			return &Error{auditRetention.Name, fmt.Sprintf("%q is not a whole number of days from %d to %d", v, governance.MinRetentionDays, 100*366)}
		case days < governance.MinRetentionDays:
			return &Error{auditRetention.Name, fmt.Sprintf("%d days is below the floor of %d days; unset it to keep audit records forever", days, governance.MinRetentionDays)}
		}
		c.AuditRetention = time.Duration(days) * 24 * time.Hour
	}
	return nil
}

// auditSettings says whether the audit pump and the transparency log run.
func auditSettings(c *Config, get func(Setting) string) error {
	switch get(auditPump) {
	case "on":
		c.AuditPump = true
	case "off":
	default:
		return &Error{"AUDIT_PUMP", fmt.Sprintf("%q is not on or off", get(auditPump))}
	}
	switch get(transparencyLog) {
	case "on":
		c.TransparencyLog = true
	case "off":
	default:
		return &Error{transparencyLog.Name, fmt.Sprintf("%q is not on or off", get(transparencyLog))}
	}
	return nil
}

// logSettings reads the transparency log's origin, keys, anchors and
// witnesses.
func logSettings(c *Config, get func(Setting) string) error {
	c.LogOrigin, c.LogSigningKey, c.LogSigningKeyID, c.LogAnchorDir = get(logOrigin), get(logSigningKey), get(logSigningKeyID), get(logAnchorDir)
	if c.LogSigningKey != "" && c.LogSigningKeyID != "" {
		return &Error{logSigningKeyID.Name, "set LOG_SIGNING_KEY or LOG_SIGNING_KEY_ID, not both"}
	}
	if strings.ContainsAny(c.LogOrigin, "+ \t\n") || !utf8.ValidString(c.LogOrigin) {
		return &Error{logOrigin.Name, fmt.Sprintf("%q is not a key name: no spaces or +", c.LogOrigin)}
	}
	c.LogAnchorURL = get(logAnchorURL)
	if c.LogEd25519SecretID = get(logEd25519Secret); c.LogEd25519SecretID != "" && c.LogSigningKeyID == "" {
		return &Error{logEd25519Secret.Name, "needs LOG_SIGNING_KEY_ID: without it the log signs with Ed25519 already"}
	}
	if path := get(logWitnessPolicy); path != "" {
		b, err := os.ReadFile(path)
		if err == nil {
			c.LogWitnesses, err = transparency.ParsePolicy(b)
		}
		if err == nil {
			err = c.LogWitnesses.Submittable()
		}
		if err != nil {
			return &Error{logWitnessPolicy.Name, err.Error()}
		}
	}
	switch get(logWitnessPublish) {
	case transparency.PublishAlways:
	case transparency.PublishWithQuorum:
		c.LogPublishWithQuorum = true
	default:
		return &Error{logWitnessPublish.Name, fmt.Sprintf("%q is not always or quorum", get(logWitnessPublish))}
	}
	if c.LogAnchorDir == "" {
		c.LogAnchorDir = filepath.Join(c.DataDir, "log-anchors")
	}
	return nil
}

// processSettings reads the log level and the process's deadlines.
func processSettings(c *Config, get func(Setting) string) error {
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return &Error{"LOG_LEVEL", fmt.Sprintf("%q is not debug, info, warn or error", c.LogLevel)}
	}
	for _, d := range []struct {
		s   Setting
		dst *time.Duration
	}{
		{storeOpenTimeout, &c.StoreOpenTimeout}, {storeTimeout, &c.StoreTimeout}, {shutdownTimeout, &c.ShutdownTimeout},
	} {
		v, err := durationSetting(get, d.s, 100*time.Millisecond, time.Hour)
		if err != nil {
			return err
		}
		*d.dst = v
	}
	return nil
}

// devReach refuses AUTH_MODE=dev on an address other machines can reach,
// unless AUTH_DEV_ALLOW_REMOTE says so: dev takes the caller's word for who
// they are (X-User-Id), so anyone who reached the port could act as any
// user. An inherited socket was bound by whoever started the process,
// which chose its address.
func devReach(c *Config, get func(Setting) string) error {
	allow, err := strconv.ParseBool(get(devAllowRemote))
	if err != nil {
		return &Error{devAllowRemote.Name, fmt.Sprintf("%q is not true or false", get(devAllowRemote))}
	}
	if c.Auth.Mode != auth.Dev || c.InheritedListener || allow || loopback(c.ListenAddr) {
		return nil
	}
	return &Error{listenAddr.Name, fmt.Sprintf("%s is not a loopback address, and AUTH_MODE=dev trusts the X-User-Id header: "+
		"anyone who reaches it could act as any user, admins included. Listen on 127.0.0.1 (the default), "+
		"choose another AUTH_MODE, or set %s=true to accept that", c.ListenAddr, devAllowRemote.Name)}
}

// loopback reports whether a host:port only this machine can reach: a
// loopback IP or localhost. An empty host listens on every address.
func loopback(addr string) bool {
	host, _, _ := net.SplitHostPort(addr)
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// corsSettings reads the CORS policy. An origin is compared exactly, as a
// browser sends it in Origin, so anything else is refused rather than
// quietly never matching; "*" stands alone and never with credentials,
// which browsers would refuse.
func corsSettings(c *Config, get func(Setting) string) error {
	switch v := get(corsCredentials); v {
	case "true":
		c.CORSAllowCredentials = true
	case "false":
	default:
		return &Error{corsCredentials.Name, fmt.Sprintf("%q is not true or false", v)}
	}
	for o := range strings.SplitSeq(get(corsOrigins), ",") {
		if o = strings.TrimSpace(o); o == "" {
			continue
		}
		if o != "*" && !isOrigin(o) {
			return &Error{corsOrigins.Name, fmt.Sprintf("%q is not an origin: give scheme://host[:port] in lower case, with no path or trailing slash, as a browser sends it", o)}
		}
		c.CORSAllowedOrigins = append(c.CORSAllowedOrigins, o)
	}
	if slices.Contains(c.CORSAllowedOrigins, "*") {
		switch {
		case len(c.CORSAllowedOrigins) > 1:
			return &Error{corsOrigins.Name, "* allows every origin and cannot be listed with others"}
		case c.CORSAllowCredentials:
			return &Error{corsOrigins.Name, "* cannot be combined with CORS_ALLOW_CREDENTIALS=true: list the exact origins allowed to send credentials"}
		}
	}
	return nil
}

// isOrigin reports whether s is a serialised origin: http or https, a host
// and an optional port, nothing else.
func isOrigin(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		!strings.ContainsAny(u.Host, "*@") && s == u.Scheme+"://"+u.Host && s == strings.ToLower(s)
}

// durationSetting reads a Go duration ("10s", "1m30s") or a whole number
// of seconds.
func durationSetting(get func(Setting) string, s Setting, lo, hi time.Duration) (time.Duration, error) {
	v, name := get(s), s.Name
	d, err := time.ParseDuration(v)
	if n, nerr := strconv.Atoi(v); nerr == nil {
		d, err = time.Duration(n)*time.Second, nil
	}
	if err != nil || d < lo || d > hi {
		return 0, &Error{name, fmt.Sprintf("%q is not a duration from %s to %s (like 10s)", v, lo, hi)}
	}
	return d, nil
}

func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func intSetting(get func(Setting) string, s Setting, lo, hi int) (int, error) {
	v, name := get(s), s.Name
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, &Error{name, fmt.Sprintf("%q is not a whole number from %d to %d", v, lo, hi)}
	}
	return n, nil
}

// validResourceName follows the Cosmos DB rules for database and container
// ids: 1-255 characters, none of / \ ? #, no trailing space.
func validResourceName(s string) bool {
	return s != "" && len(s) <= 255 && !strings.ContainsAny(s, `/\?#`) && strings.TrimSpace(s) == s
}
