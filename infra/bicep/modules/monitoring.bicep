// Log Analytics and a workspace-based Application Insights resource that
// accepts only Microsoft Entra authenticated telemetry (local auth off): the
// app sends with APPLICATIONINSIGHTS_AUTHENTICATION_STRING and needs the
// Monitoring Metrics Publisher role (see roles.bicep).
//
// The workspace also receives Cosmos DB's resource logs (cosmos.bicep sends
// them in resource-specific mode). CDBPartitionKeyRUConsumption, the RU
// each logical partition key consumed, from every instance of the app, is
// high-volume and read only when a partition runs hot: it is on the Basic
// table plan, which Cosmos DB's tables support (Azure Monitor: Tables that
// support the Basic table plan). A saved query reads it.

@description('Name of the Log Analytics workspace.')
param logAnalyticsName string

@description('Name of the Application Insights component.')
param appInsightsName string

@description('Azure region.')
param location string

@description('Tags applied to both resources.')
param tags object = {}

@description('Days of log retention in the workspace.')
@minValue(30)
@maxValue(730)
param retentionInDays int = 30

resource workspace 'Microsoft.OperationalInsights/workspaces@2026-03-01' = {
  name: logAnalyticsName
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: retentionInDays
  }
}

resource appInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: appInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: workspace.id
    IngestionMode: 'LogAnalytics'
    DisableLocalAuth: true
  }
}

// Basic: cheaper ingestion, 30 days of queries, each query charged by the
// data it scans, single-table KQL without user-defined functions (Azure
// Monitor: Query data in a Basic and Auxiliary table).
resource partitionKeyRUTable 'Microsoft.OperationalInsights/workspaces/tables@2026-03-01' = {
  parent: workspace
  name: 'CDBPartitionKeyRUConsumption'
  properties: {
    plan: 'Basic'
  }
}

// The partition load of all instances, which GET /api/manage/partitions
// (one instance's view) names under the Functions host
// (httpapi.FleetQueryName): per 5-minute window, per container, the ten
// partition keys that consumed the most RU, with their share of the
// container's RU in the window (the partition analyzer's "hottest logical"
// is the same share, of writes). Run it with the time range set to the
// last hour: a Basic-table query is charged for the range it scans.
var hotPartitionsQuery = '''
CDBPartitionKeyRUConsumption
| where TimeGenerated > ago(1h)
| extend Window = bin(TimeGenerated, 5m)
| top-nested of Window by WindowRU = sum(RequestCharge),
  top-nested of CollectionName by ContainerRU = sum(RequestCharge),
  top-nested 10 of PartitionKey by RU = sum(RequestCharge)
| extend Share = round(RU / ContainerRU, 3)
| project Window, Container = CollectionName, PartitionKey, RU = round(RU, 1), Share
| sort by Window desc, RU desc
'''

resource hotPartitions 'Microsoft.OperationalInsights/workspaces/savedSearches@2026-03-01' = {
  parent: workspace
  name: 'todoaudit-hot-partitions'
  dependsOn: [
    partitionKeyRUTable
  ]
  properties: {
    category: 'todoaudit'
    displayName: 'Top partition keys by RU, last hour, per 5 minutes'
    query: hotPartitionsQuery
    version: 2
  }
}

// Names only: the connection string is read where it is needed (function
// app settings) through an existing reference, never passed as an output.
output appInsightsName string = appInsights.name
output appInsightsId string = appInsights.id
output logAnalyticsName string = workspace.name
output logAnalyticsId string = workspace.id
output hotPartitionsQueryName string = hotPartitions.properties.displayName
