// Flex Consumption plan and the function app (custom handler), running as the
// user-assigned identity, with identity-based host storage and deployment
// storage, HTTPS only, TLS 1.2, FTPS off, and optional App Service
// Authentication (Microsoft Entra ID) in front of the API.

@description('Function app name (globally unique).')
param name string

@description('Flex Consumption plan name.')
param planName string

@description('Azure region (must offer Flex Consumption).')
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

@description('Application Insights component name.')
param appInsightsName string

@description('Settings the handler reads (see config/config.go), merged with the host settings below.')
param appSettings object

@description('Flex Consumption runtime name: custom handler.')
param runtimeName string = 'custom'

// UNCERTAIN: the runtime version Flex Consumption expects for 'custom' is not
// documented; '1.0' is what Microsoft's own custom-handler-on-Flex samples use.
// Run `make what-if` (or azd provision --preview) before the first deploy.
@description('Flex Consumption runtime version for the custom runtime (unverified; see README).')
param runtimeVersion string = '1.0'

@description('Instance memory size in MB.')
@allowed([
  512
  2048
  4096
])
param instanceMemoryMB int = 2048

@description('Maximum number of instances the app scales out to.')
param maximumInstanceCount int = 100

@description('Microsoft Entra application (client) id for App Service Authentication. Empty: authentication is not configured by this template.')
param authClientId string = ''

@description('Paths App Service Authentication lets through without a token (the health probe).')
param authExcludedPaths array = [
  '/api/health'
]

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    name: 'FC1'
    tier: 'FlexConsumption'
  }
  properties: {
    reserved: true
  }
}

resource site 'Microsoft.Web/sites@2024-04-01' = {
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
    siteConfig: {
      minTlsVersion: '1.2'
      ftpsState: 'Disabled'
      http20Enabled: true
    }
    functionAppConfig: {
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
  }
}

// Host settings: identity-based AzureWebJobsStorage (no connection string,
// the account has shared keys disabled) and Entra-only Application Insights.
// FUNCTIONS_WORKER_RUNTIME is deliberately absent: on Flex Consumption it
// comes from functionAppConfig.runtime and is rejected as an app setting.
var hostSettings = {
  AzureWebJobsStorage__blobServiceUri: storage.properties.primaryEndpoints.blob
  AzureWebJobsStorage__queueServiceUri: storage.properties.primaryEndpoints.queue
  AzureWebJobsStorage__tableServiceUri: storage.properties.primaryEndpoints.table
  AzureWebJobsStorage__credential: 'managedidentity'
  AzureWebJobsStorage__clientId: identityClientId
  APPLICATIONINSIGHTS_CONNECTION_STRING: appInsights.properties.ConnectionString
  APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'ClientId=${identityClientId};Authorization=AAD'
}

resource settings 'Microsoft.Web/sites/config@2024-04-01' = {
  parent: site
  name: 'appsettings'
  properties: union(appSettings, hostSettings)
}

// App Service Authentication (Easy Auth v2): validates Microsoft Entra
// bearer tokens and sets X-MS-CLIENT-PRINCIPAL-ID and X-MS-CLIENT-PRINCIPAL,
// which AUTH_MODE=easyauth trusts. Without it those headers are not stripped
// from incoming requests, so easyauth must not be deployed without it
// (infra/deploy.sh check refuses it). Under entra the handler verifies the
// token itself and this is a second guard.
resource auth 'Microsoft.Web/sites/config@2024-04-01' = if (!empty(authClientId)) {
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
output authConfigured bool = !empty(authClientId)
