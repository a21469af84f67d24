// Package invocation serves the functions the Functions host invokes in
// payload mode rather than by forwarding an HTTP request: each handler
// decodes the host's invocation (package azfunc), calls the core it
// adapts, which knows nothing of the host, and answers the host's
// response or fails the invocation. httpapi serves them at
// POST /{FunctionName} on the loopback port only the host talks to,
// beside its route table of HTTP-triggered functions; CheckPayloadLimit
// says whether its invocation limit admits the largest batch the host
// can send AuditTrigger.
package invocation
