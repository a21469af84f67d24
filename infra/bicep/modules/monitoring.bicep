// Log Analytics and a workspace-based Application Insights resource that
// accepts only Microsoft Entra authenticated telemetry (local auth off): the
// app sends with APPLICATIONINSIGHTS_AUTHENTICATION_STRING and needs the
// Monitoring Metrics Publisher role (see roles.bicep).

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

resource workspace 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
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

// Names only: the connection string is read where it is needed (function
// app settings) through an existing reference, never passed as an output.
output appInsightsName string = appInsights.name
output appInsightsId string = appInsights.id
output logAnalyticsName string = workspace.name
