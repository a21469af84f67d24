// The hosting plan and the function app (custom handler), running as the
// user-assigned identity, with identity-based host storage and deployment
// package, HTTPS only, TLS 1.2 for the app and its SCM site, FTP off (basic
// publishing credentials off on both plans), and optional App Service
// Authentication (Microsoft Entra ID) in front of the API.
//
// hostingPlan flex (default): Flex Consumption (FC1), runtime `custom`
// version `1.0` (its stack data; the Flex Consumption migration guide lists
// custom handlers as supported), instance memory 512, 2048 or 4096 MB, 1 to
// 1000 instances. Flex refuses many site properties and app settings other
// plans take (Flex Consumption plan deprecations, in the Functions app
// settings reference): ftpsState among them, so FTP stays off through the
// publishing-credential policies alone. infra/platform_test.go lists those
// rules per plan with their sources.
// hostingPlan premium: Elastic Premium EP1 on Linux. The same identity,
// settings and security posture, and ftpsState Disabled as well; the package
// is a blob the app fetches with its identity (run from package URL), so no
// Azure Files share and no storage key is needed. A package uploaded there
// needs a restart and a trigger sync (infra/deploy.sh app does both).

@description('Function app name (globally unique).')
param name string

@description('Hosting plan name.')
param planName string

@description('flex: Flex Consumption (FC1). premium: Elastic Premium EP1, where custom handlers are documented.')
@allowed([
  'flex'
  'premium'
])
param hostingPlan string = 'flex'

@description('Azure region (must offer the hosting plan).')
param location string

@description('Tags applied to the plan and the app.')
param tags object = {}

@description('Value of the azd-service-name tag: the service name in azure.yaml.')
param azdServiceName string = 'api'

@description('Resource id of the user-assigned identity the app runs as.')
param identityId string

@description('Client id of that identity.')
param identityClientId string

@description('Storage account for AzureWebJobsStorage and the deployment package.')
param storageAccountName string

@description('Blob container that holds the deployment package.')
param deploymentContainerName string

@description('Blob name of the deployment package under premium (run from package URL).')
param packageBlobName string = 'app.zip'

@description('Application Insights component name.')
param appInsightsName string

@description('Settings the handler reads (see config/config.go), merged with the host settings below.')
param appSettings object

@description('Flex Consumption runtime name: custom handler.')
param runtimeName string = 'custom'

// Flex Consumption's stack data lists runtime custom with version 1.0.
@description('Flex Consumption runtime version for the custom runtime.')
param runtimeVersion string = '1.0'

@description('Flex Consumption instance memory size in MB (the sizes its stack data lists).')
@allowed([
  512
  2048
  4096
])
param instanceMemoryMB int = 2048

@description('Flex Consumption: maximum number of instances the app scales out to (Flex allows 1 to 1000).')
@minValue(1)
@maxValue(1000)
param maximumInstanceCount int = 100

@description('Elastic Premium: maximum number of instances (burst) the plan scales out to.')
@minValue(1)
@maxValue(100)
param premiumMaximumInstanceCount int = 20

@description('Microsoft Entra application (client) id for App Service Authentication. Empty: authentication is not configured by this template.')
param authClientId string = ''

@description('Paths App Service Authentication lets through without a token (the health probe and the contract).')
param authExcludedPaths array = [
  '/api/health'
  '/api/openapi.json'
]

@description('Origins allowed by the platform\'s CORS, which answers browsers in front of the handler.')
param corsAllowedOrigins array = []

resource storage 'Microsoft.Storage/storageAccounts@2026-04-01' existing = {
  name: storageAccountName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

var isFlex = hostingPlan == 'flex'

// The plan's SKU per hosting plan.
var planSkus = {
  flex: {
    name: 'FC1'
    tier: 'FlexConsumption'
  }
  premium: {
    name: 'EP1'
    tier: 'ElasticPremium'
  }
}

resource plan 'Microsoft.Web/serverfarms@2025-03-01' = {
  name: planName
  location: location
  tags: tags
  kind: isFlex ? 'functionapp' : 'elastic'
  sku: planSkus[hostingPlan]
  properties: {
    reserved: true
    maximumElasticWorkerCount: isFlex ? null : premiumMaximumInstanceCount
  }
}

// Flex Consumption: the package comes from the deployment container, read
// with the identity; runtime and scale live here rather than in settings.
var flexAppConfig = {
  deployment: {
    storage: {
      type: 'blobContainer'
      value: '${storage.properties.primaryEndpoints.blob}${deploymentContainerName}'
      authentication: {
        type: 'UserAssignedIdentity'
        userAssignedIdentityResourceId: identityId
      }
    }
  }
  scaleAndConcurrency: {
    instanceMemoryMB: instanceMemoryMB
    maximumInstanceCount: maximumInstanceCount
  }
  runtime: {
    name: runtimeName
    version: runtimeVersion
  }
}

// Site configuration for both plans: TLS 1.2 for the app and for its SCM
// (deployment) site, the browsers' origins, and no ftpsState: Flex Consumption
// refuses it.
var siteSecurity = {
  minTlsVersion: '1.2'
  scmMinTlsVersion: '1.2'
  http20Enabled: true
  cors: {
    allowedOrigins: corsAllowedOrigins
  }
}

// Elastic Premium keeps one instance warm and bursts up to the plan maximum,
// and takes ftpsState, which turns the FTP endpoint itself off.
var premiumSiteConfig = {
  linuxFxVersion: ''
  minimumElasticInstanceCount: 1
  functionAppScaleLimit: premiumMaximumInstanceCount
  ftpsState: 'Disabled'
}

resource site 'Microsoft.Web/sites@2025-03-01' = {
  name: name
  location: location
  tags: union(tags, { 'azd-service-name': azdServiceName })
  kind: 'functionapp,linux'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identityId}': {}
    }
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    clientCertEnabled: false
    siteConfig: isFlex ? siteSecurity : union(siteSecurity, premiumSiteConfig)
    functionAppConfig: isFlex ? flexAppConfig : null
  }
}

// Basic (user name and password) publishing credentials off for FTP and for
// the SCM site: deployments authenticate with Microsoft Entra ID only.
resource ftpCredentials 'Microsoft.Web/sites/basicPublishingCredentialsPolicies@2025-03-01' = {
  parent: site
  name: 'ftp'
  properties: {
    allow: false
  }
}

resource scmCredentials 'Microsoft.Web/sites/basicPublishingCredentialsPolicies@2025-03-01' = {
  parent: site
  name: 'scm'
  properties: {
    allow: false
  }
}

// Host settings: identity-based AzureWebJobsStorage (no connection string,
// the account has shared keys disabled) and Entra-only Application Insights.
var hostSettings = {
  AzureWebJobsStorage__blobServiceUri: storage.properties.primaryEndpoints.blob
  AzureWebJobsStorage__queueServiceUri: storage.properties.primaryEndpoints.queue
  AzureWebJobsStorage__tableServiceUri: storage.properties.primaryEndpoints.table
  AzureWebJobsStorage__credential: 'managedidentity'
  AzureWebJobsStorage__clientId: identityClientId
  APPLICATIONINSIGHTS_CONNECTION_STRING: appInsights.properties.ConnectionString
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'ClientId=${identityClientId};Authorization=AAD'
}

// Settings only one plan takes. Flex Consumption takes its runtime and
// package from functionAppConfig and rejects FUNCTIONS_WORKER_RUNTIME and
// WEBSITE_RUN_FROM_PACKAGE; Elastic Premium needs them, and fetches the
// package blob with the user-assigned identity.
var planSettings = {
  flex: {}
  premium: {
    FUNCTIONS_WORKER_RUNTIME: 'custom'
    FUNCTIONS_EXTENSION_VERSION: '~4'
    WEBSITE_RUN_FROM_PACKAGE: '${storage.properties.primaryEndpoints.blob}${deploymentContainerName}/${packageBlobName}'
    WEBSITE_RUN_FROM_PACKAGE_BLOB_MI_RESOURCE_ID: identityId
  }
}

resource settings 'Microsoft.Web/sites/config@2025-03-01' = {
  parent: site
  name: 'appsettings'
  properties: union(appSettings, hostSettings, planSettings[hostingPlan])
}

// App Service Authentication (Easy Auth v2): validates Microsoft Entra
// bearer tokens and sets X-MS-CLIENT-PRINCIPAL-ID and X-MS-CLIENT-PRINCIPAL,
// which AUTH_MODE=easyauth trusts. Without it those headers are not stripped
// from incoming requests, so easyauth must not be deployed without it
// (infra/deploy.sh check refuses it). Under entra the handler verifies the
// token itself and this is a second guard.
resource auth 'Microsoft.Web/sites/config@2025-03-01' = if (!empty(authClientId)) {
  parent: site
  name: 'authsettingsV2'
  properties: {
    platform: {
      enabled: true
    }
    globalValidation: {
      requireAuthentication: true
      unauthenticatedClientAction: 'Return401'
      excludedPaths: authExcludedPaths
    }
    httpSettings: {
      requireHttps: true
    }
    identityProviders: {
      azureActiveDirectory: {
        enabled: true
        registration: {
          clientId: authClientId
          openIdIssuer: '${environment().authentication.loginEndpoint}${tenant().tenantId}/v2.0'
        }
        validation: {
          allowedAudiences: [
            'api://${authClientId}'
            authClientId
          ]
        }
      }
    }
    login: {
      tokenStore: {
        enabled: false
      }
    }
  }
}

output name string = site.name
output id string = site.id
output defaultHostName string = site.properties.defaultHostName
output planName string = plan.name
output hostingPlan string = hostingPlan
output packageUrl string = isFlex ? '' : planSettings.premium.WEBSITE_RUN_FROM_PACKAGE
output authConfigured bool = !empty(authClientId)
