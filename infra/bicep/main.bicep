// Todo API with audit history: Azure Functions (custom handler, on Flex
// Consumption or Elastic Premium) on Cosmos DB, everything reached with one user-assigned managed
// identity and no keys. Deployed with `azd up` (azure.yaml) or
// infra/deploy.sh (make deploy-infra / deploy-app / what-if).
targetScope = 'subscription'

@minLength(1)
@maxLength(64)
@description('Environment name (azd: AZURE_ENV_NAME). Seeds resource names and tags.')
param environmentName string

@minLength(1)
@description('Azure region of every resource; it must offer the hosting plan.')
@metadata({
  azd: {
    type: 'location'
  }
})
param location string

@description('Resource group name. Empty: rg-<environmentName>.')
param resourceGroupName string = ''

@description('Todo container partition scheme (PARTITION_SCHEME). Fixed once the container exists.')
@allowed([
  'hierarchical'
  'category'
  'synthetic'
])
param partitionScheme string = 'hierarchical'

@description('Logical partitions per user under the synthetic scheme (SYNTHETIC_BUCKETS).')
@minValue(1)
@maxValue(100)
param syntheticBuckets int = 8

@description('Cosmos DB capacity: serverless, or autoscale throughput shared by the database.')
@allowed([
  'serverless'
  'autoscale'
])
param cosmosCapacityMode string = 'serverless'

@description('Autoscale maximum RU/s (autoscale mode only).')
@minValue(1000)
param cosmosAutoscaleMaxThroughput int = 1000

@description('AUTH_MODE of the deployed handler. Empty: the handler decides, entra when authClientId is set (it then has an issuer), else easyauth. dev is refused under the Functions host.')
@allowed([
  ''
  'entra'
  'easyauth'
  'single'
])
param authMode string = ''

@description('Microsoft Entra application (client) id of the API. Set: the handler verifies tokens issued by this tenant for it (AUTH_ISSUER, AUTH_AUDIENCE), and App Service Authentication validates them in front when appServiceAuth is true. Empty: neither is configured here.')
param authClientId string = ''

@description('The aud the handler requires (AUTH_AUDIENCE). Empty: authClientId, the audience of v2.0 access tokens.')
param authAudience string = ''

@description('Turn on App Service Authentication in front of the API when authClientId is set. The handler verifies tokens itself under entra, so this is a second guard there; easyauth depends on it.')
param appServiceAuth bool = true

@description('Comma-separated user ids allowed on /api/manage under AUTH_MODE=single (ADMIN_USERS). Under entra and easyauth the Todo.Admin app role decides.')
param adminUsers string = ''

@description('Exact origins (https://app.example.com) whose browser pages may call the API (CORS_ALLOWED_ORIGINS), also set as the function app\'s own CORS, which answers in front of the handler. Empty: none.')
param corsAllowedOrigins array = []

@description('Retention of version documents, the audit outbox, in seconds (VERSION_TTL_SECONDS).')
@minValue(60)
@maxValue(315360000)
param versionTtlSeconds int = 2592000

@description('Object id of the deploying user or principal, granted Cosmos DB Built-in Data Contributor on the database. Empty: none.')
param principalId string = ''

@description('Database name (COSMOS_DATABASE); the default matches config/config.go.')
param cosmosDatabaseName string = 'todoapp'

@description('Todo container name (COSMOS_TODO_CONTAINER).')
param todoContainerName string = 'todos'

@description('Audit container name (COSMOS_AUDIT_CONTAINER).')
param auditContainerName string = 'audit'

@description('Leases container name (COSMOS_LEASES_CONTAINER).')
param leasesContainerName string = 'leases'

@description('Handler log level (LOG_LEVEL).')
@allowed([
  'debug'
  'info'
  'warn'
  'error'
])
param logLevel string = 'info'

@description('Sign checkpoints also with an Ed25519 key, kept as the vault secret log-signing-ed25519 (created after deployment, docs/transparency-log.md#witnesses), so that witnesses accept them.')
param logEd25519 bool = false

@description('OTLP/HTTP endpoint, such as an OpenTelemetry Collector, that receives the traces and metrics of the handler and of the host (OTEL_EXPORTER_OTLP_ENDPOINT). Empty: the handler exports nothing; the host still sends its own telemetry and the handler log lines to Application Insights.')
param otlpEndpoint string = ''

@description('Hosting plan (HOSTING_PLAN): flex is Flex Consumption; premium is Elastic Premium EP1, where custom handlers are documented (see docs/deploying.md).')
@allowed([
  'flex'
  'premium'
])
param hostingPlan string = 'flex'

// Flex Consumption's stack data lists runtime custom with version 1.0.
@description('Flex Consumption runtime version for runtime custom.')
param functionsRuntimeVersion string = '1.0'

@description('Flex Consumption instance memory (MB).')
@allowed([
  512
  2048
  4096
])
param instanceMemoryMB int = 2048

@description('Flex Consumption maximum instance count (Flex allows 1 to 1000).')
@minValue(1)
@maxValue(1000)
param maximumInstanceCount int = 100

@description('Elastic Premium maximum instance (burst) count.')
@minValue(1)
@maxValue(100)
param premiumMaximumInstanceCount int = 20

@description('E-mail address the alerts go to (ALERT_EMAIL). Empty: the action group is created without receivers; add them in the portal.')
param alertEmail string = ''

@description('Cosmos DB requests throttled (429) in 5 minutes above which the throttling alert fires.')
@minValue(0)
param alertThrottledRequestsPer5Min int = 100

@description('Failed function executions (failed invocations and 5xx answers) in 5 minutes above which the alert fires.')
@minValue(0)
param alertFailedExecutionsPer5Min int = 5

@description('Audit lag in seconds above which the audit-lag alert fires.')
@minValue(1)
param alertAuditLagSeconds int = 300

var resourceToken = toLower(uniqueString(subscription().id, environmentName, location))
var tags = {
  'azd-env-name': environmentName
  app: 'todoaudit'
}
var rgName = empty(resourceGroupName) ? 'rg-${environmentName}' : resourceGroupName
var deploymentContainerName = 'app-package-${resourceToken}'

resource rg 'Microsoft.Resources/resourceGroups@2025-04-01' = {
  name: rgName
  location: location
  tags: tags
}

module identity 'modules/identity.bicep' = {
  name: 'identity'
  scope: rg
  params: {
    name: 'id-${resourceToken}'
    location: location
    tags: tags
  }
}

module monitoring 'modules/monitoring.bicep' = {
  name: 'monitoring'
  scope: rg
  params: {
    logAnalyticsName: 'log-${resourceToken}'
    appInsightsName: 'appi-${resourceToken}'
    location: location
    tags: tags
  }
}

module storage 'modules/storage.bicep' = {
  name: 'storage'
  scope: rg
  params: {
    name: 'st${resourceToken}'
    location: location
    tags: tags
    deploymentContainerName: deploymentContainerName
  }
}

module cosmos 'modules/cosmos.bicep' = {
  name: 'cosmos'
  scope: rg
  params: {
    accountName: 'cosmos-${resourceToken}'
    location: location
    tags: tags
    databaseName: cosmosDatabaseName
    todoContainerName: todoContainerName
    auditContainerName: auditContainerName
    leasesContainerName: leasesContainerName
    partitionScheme: partitionScheme
    capacityMode: cosmosCapacityMode
    autoscaleMaxThroughput: cosmosAutoscaleMaxThroughput
    logAnalyticsWorkspaceId: monitoring.outputs.logAnalyticsId
  }
}

module alerts 'modules/alerts.bicep' = {
  name: 'alerts'
  scope: rg
  params: {
    actionGroupName: 'ag-${resourceToken}'
    alertEmail: alertEmail
    location: location
    tags: tags
    cosmosAccountName: cosmos.outputs.accountName
    appInsightsName: monitoring.outputs.appInsightsName
    throttledRequestsPer5Min: alertThrottledRequestsPer5Min
    failedExecutionsPer5Min: alertFailedExecutionsPer5Min
    auditLagSeconds: alertAuditLagSeconds
  }
}

module roles 'modules/roles.bicep' = {
  name: 'roles'
  scope: rg
  params: {
    appPrincipalId: identity.outputs.principalId
    deployerPrincipalId: principalId
    storageAccountName: storage.outputs.name
    appInsightsName: monitoring.outputs.appInsightsName
    cosmosAccountName: cosmos.outputs.accountName
    databaseName: cosmos.outputs.databaseName
  }
}

module transparency 'modules/transparency.bicep' = {
  name: 'transparency'
  scope: rg
  params: {
    vaultName: 'kv-${resourceToken}'
    storageName: 'stlog${resourceToken}'
    location: location
    tags: tags
    appPrincipalId: identity.outputs.principalId
    ed25519: logEd25519
  }
}

// Every setting the handler reads in Azure (names from config/config.go;
// infra/infra_test.go checks both ways). The Cosmos DB trigger and output
// binding use the same CosmosDB__* section (function.json connection
// "CosmosDB"). No COSMOS_KEY: the account has local auth disabled.
var appSettings = {
  CosmosDB__accountEndpoint: cosmos.outputs.endpoint
  CosmosDB__credential: 'managedidentity'
  CosmosDB__clientId: identity.outputs.clientId
  AZURE_CLIENT_ID: identity.outputs.clientId
  COSMOS_DATABASE: cosmosDatabaseName
  COSMOS_TODO_CONTAINER: todoContainerName
  COSMOS_AUDIT_CONTAINER: auditContainerName
  COSMOS_LEASES_CONTAINER: leasesContainerName
  PARTITION_SCHEME: partitionScheme
  SYNTHETIC_BUCKETS: string(syntheticBuckets)
  AUTH_MODE: authMode
  AUTH_ISSUER: empty(authClientId) ? '' : '${environment().authentication.loginEndpoint}${tenant().tenantId}/v2.0'
  AUTH_AUDIENCE: empty(authAudience) ? authClientId : authAudience
  AUTH_CLIENT_ID: authClientId
  ADMIN_USERS: adminUsers
  CORS_ALLOWED_ORIGINS: join(corsAllowedOrigins, ',')
  VERSION_TTL_SECONDS: string(versionTtlSeconds)
  LOG_LEVEL: logLevel
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint
  LOG_SIGNING_KEY_ID: transparency.outputs.signingUrl
  LOG_ANCHOR_URL: transparency.outputs.anchorsUrl
  LOG_ED25519_SECRET_ID: transparency.outputs.ed25519Url
}

// The app starts only after its role assignments exist: the host reads
// storage and Cosmos DB with the identity from its first start, and the
// package upload (azd, deploy.sh) uses it too.
module functionApp 'modules/functionapp.bicep' = {
  name: 'functionapp'
  scope: rg
  dependsOn: [
    roles
  ]
  params: {
    name: 'func-${resourceToken}'
    planName: 'plan-${resourceToken}'
    hostingPlan: hostingPlan
    location: location
    tags: tags
    identityId: identity.outputs.id
    identityClientId: identity.outputs.clientId
    storageAccountName: storage.outputs.name
    deploymentContainerName: storage.outputs.deploymentContainerName
    appInsightsName: monitoring.outputs.appInsightsName
    appSettings: appSettings
    runtimeVersion: functionsRuntimeVersion
    instanceMemoryMB: instanceMemoryMB
    maximumInstanceCount: maximumInstanceCount
    premiumMaximumInstanceCount: premiumMaximumInstanceCount
    authClientId: appServiceAuth ? authClientId : ''
    corsAllowedOrigins: corsAllowedOrigins
  }
}

// Names and URLs only; never keys or connection strings.
output AZURE_LOCATION string = location
output AZURE_TENANT_ID string = tenant().tenantId
output AZURE_RESOURCE_GROUP string = rg.name
output FUNCTION_APP_NAME string = functionApp.outputs.name
output HOSTING_PLAN string = functionApp.outputs.hostingPlan
output PACKAGE_URL string = functionApp.outputs.packageUrl
output FUNCTION_APP_URL string = 'https://${functionApp.outputs.defaultHostName}'
output API_BASE_URL string = 'https://${functionApp.outputs.defaultHostName}/api'
output AUTH_CONFIGURED bool = functionApp.outputs.authConfigured
output COSMOS_ACCOUNT_NAME string = cosmos.outputs.accountName
output COSMOS_ENDPOINT string = cosmos.outputs.endpoint
output COSMOS_DATABASE string = cosmos.outputs.databaseName
output PARTITION_SCHEME string = partitionScheme
output STORAGE_ACCOUNT_NAME string = storage.outputs.name
output APPLICATIONINSIGHTS_NAME string = monitoring.outputs.appInsightsName
output LOG_ANALYTICS_NAME string = monitoring.outputs.logAnalyticsName
output HOT_PARTITIONS_QUERY string = monitoring.outputs.hotPartitionsQueryName
output ACTION_GROUP_NAME string = alerts.outputs.actionGroupName
output MANAGED_IDENTITY_CLIENT_ID string = identity.outputs.clientId
