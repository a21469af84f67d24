// Role assignments. Azure RBAC for the host (storage, monitoring) and Cosmos
// DB data-plane RBAC (sqlRoleAssignments: these are not Azure RBAC roles, and
// management roles such as Owner grant no data access).

@description('Principal (object) id of the app identity.')
param appPrincipalId string

@description('Optional principal (object) id of the deploying user, granted Cosmos data access for local runs against this account. Empty: none.')
param deployerPrincipalId string = ''

@description('Storage account used by the host and for deployment.')
param storageAccountName string

@description('Application Insights component.')
param appInsightsName string

@description('Cosmos DB account.')
param cosmosAccountName string

@description('Database the data role is scoped to.')
param databaseName string

// Built-in Azure role definition ids.
var storageBlobDataOwner = 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'
var storageQueueDataContributor = '974c5e8b-45b9-4653-ba55-5f855dd0fb88'
var storageTableDataContributor = '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'
var monitoringMetricsPublisher = '3913510d-42f4-4e42-8a64-420c390055eb'
var storageBlobDataContributor = 'ba92f5b4-2d11-453d-a403-e96b0029c9fe'

// Cosmos DB Built-in Data Contributor (data plane): read metadata, items and
// containers/* (the trigger writes leases, the handler writes batches).
var cosmosDataContributor = '00000000-0000-0000-0000-000000000002'

// Blob: host keys/locks/timer schedule and the deployment package; queue and
// table: host features and diagnostics events.
var storageRoles = [
  storageBlobDataOwner
  storageQueueDataContributor
  storageTableDataContributor
]

resource storage 'Microsoft.Storage/storageAccounts@2026-04-01' existing = {
  name: storageAccountName
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: appInsightsName
}

resource cosmos 'Microsoft.DocumentDB/databaseAccounts@2026-03-15' existing = {
  name: cosmosAccountName
}

resource storageAssignments 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for roleId in storageRoles: {
    name: guid(storage.id, appPrincipalId, roleId)
    scope: storage
    properties: {
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleId)
      principalId: appPrincipalId
      principalType: 'ServicePrincipal'
    }
  }
]

resource metricsPublisher 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(appInsights.id, appPrincipalId, monitoringMetricsPublisher)
  scope: appInsights
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', monitoringMetricsPublisher)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource appCosmosData 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2026-03-15' = {
  parent: cosmos
  name: guid(cosmos.id, databaseName, appPrincipalId, cosmosDataContributor)
  properties: {
    principalId: appPrincipalId
    roleDefinitionId: '${cosmos.id}/sqlRoleDefinitions/${cosmosDataContributor}'
    scope: '${cosmos.id}/dbs/${databaseName}'
  }
}

resource deployerCosmosData 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2026-03-15' = if (!empty(deployerPrincipalId)) {
  parent: cosmos
  name: guid(cosmos.id, databaseName, deployerPrincipalId, cosmosDataContributor)
  properties: {
    principalId: deployerPrincipalId
    roleDefinitionId: '${cosmos.id}/sqlRoleDefinitions/${cosmosDataContributor}'
    scope: '${cosmos.id}/dbs/${databaseName}'
  }
}

// The deployer uploads the package blob under Elastic Premium (infra/deploy.sh
// app) with their Entra identity, since shared keys are disabled.
resource deployerPackageUpload 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(deployerPrincipalId)) {
  name: guid(storage.id, deployerPrincipalId, storageBlobDataContributor)
  scope: storage
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageBlobDataContributor)
    principalId: deployerPrincipalId
  }
}
