// Parameters for main.bicep, read from the environment so that azd (whose
// environment values are exported) and infra/deploy.sh share one file.
using 'main.bicep'

param environmentName = readEnvironmentVariable('AZURE_ENV_NAME', 'todoaudit-dev')
param location = readEnvironmentVariable('AZURE_LOCATION', 'swedencentral')
param partitionScheme = readEnvironmentVariable('PARTITION_SCHEME', 'hierarchical')
param syntheticBuckets = int(readEnvironmentVariable('SYNTHETIC_BUCKETS', '8'))
param cosmosCapacityMode = readEnvironmentVariable('COSMOS_CAPACITY_MODE', 'serverless')
param cosmosAutoscaleMaxThroughput = int(readEnvironmentVariable('COSMOS_AUTOSCALE_MAX_RU', '1000'))
param authMode = readEnvironmentVariable('AUTH_MODE', '')
param authClientId = readEnvironmentVariable('AUTH_CLIENT_ID', '')
param authAudience = readEnvironmentVariable('AUTH_AUDIENCE', '')
param appServiceAuth = bool(readEnvironmentVariable('APP_SERVICE_AUTH', 'true'))
param adminUsers = readEnvironmentVariable('ADMIN_USERS', '')
param versionTtlSeconds = int(readEnvironmentVariable('VERSION_TTL_SECONDS', '2592000'))
param principalId = readEnvironmentVariable('AZURE_PRINCIPAL_ID', '')
param hostingPlan = readEnvironmentVariable('HOSTING_PLAN', 'flex')
param functionsRuntimeVersion = readEnvironmentVariable('FUNCTIONS_CUSTOM_RUNTIME_VERSION', '1.0')
param otlpEndpoint = readEnvironmentVariable('OTEL_EXPORTER_OTLP_ENDPOINT', '')
param logEd25519 = bool(readEnvironmentVariable('LOG_ED25519', 'false'))
param alertEmail = readEnvironmentVariable('ALERT_EMAIL', '')
